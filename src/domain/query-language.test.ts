import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import {
  collectProjectNames,
  parseQuery,
  QUERY_FIELD_SPECS,
  QUERY_FIELDS,
  QUERY_OPERATORS,
  type QueryNode,
} from './query-language.ts';

const NOW = new Date('2024-03-31T12:00:00Z');
const parse = (q: string) => parseQuery(q, { now: NOW });

/** The query's tree without positions and raw values: the structure and normalized values. */
function shape(node: QueryNode): unknown {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { [node.kind]: node.children.map(shape) };
    case 'text':
      return node.quoted ? `"${node.value}"` : node.value;
    case 'term': {
      const v = node.value;
      const value = typeof v === 'object' ? { from: v.from.toISOString(), until: v.until.toISOString() } : v;
      return [node.field, node.op, value];
    }
  }
}

/** The `details.q` message of the validation error a query raises. */
function errorOf(q: string): string {
  try {
    parse(q);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('validation_error');
    expect(e.status).toBe(400);
    expect(e.details?.q).toHaveLength(1);
    return e.details!.q![0]!;
  }
  throw new Error(`no error for ${q}`);
}

describe('query-language', () => {
  describe('parseQuery', () => {
    it('parses one term with its field, operator, value and position', () => {
      expect(parse('vendor=apache')).toEqual({
        kind: 'term',
        field: 'vendor',
        op: '=',
        value: 'apache',
        raw: 'apache',
        position: 0,
      });
    });

    it('accepts every operator and keeps the longest match (>= before >)', () => {
      expect(
        ['cvss31=9', 'cvss31!=9', 'cvss31>9', 'cvss31>=9', 'cvss31<9', 'cvss31<=9'].map((q) =>
          shape(parse(q)),
        ),
      ).toEqual([
        ['cvss31', '=', 9],
        ['cvss31', '!=', 9],
        ['cvss31', '>', 9],
        ['cvss31', '>=', 9],
        ['cvss31', '<', 9],
        ['cvss31', '<=', 9],
      ]);
      expect(shape(parse('title:xz'))).toEqual(['title', ':', 'xz']);
    });

    it('binds AND tighter than OR', () => {
      expect(shape(parse('vendor=a OR vendor=b AND kev=true'))).toEqual({
        or: [
          ['vendor', '=', 'a'],
          {
            and: [
              ['vendor', '=', 'b'],
              ['kev', '=', true],
            ],
          },
        ],
      });
      expect(shape(parse('vendor=a AND vendor=b OR kev=true'))).toEqual({
        or: [
          {
            and: [
              ['vendor', '=', 'a'],
              ['vendor', '=', 'b'],
            ],
          },
          ['kev', '=', true],
        ],
      });
    });

    it('groups with parentheses', () => {
      expect(shape(parse('(vendor=a OR vendor=b) AND kev=true'))).toEqual({
        and: [
          {
            or: [
              ['vendor', '=', 'a'],
              ['vendor', '=', 'b'],
            ],
          },
          ['kev', '=', true],
        ],
      });
      expect(shape(parse('((vendor=a))'))).toEqual(['vendor', '=', 'a']);
    });

    it('flattens chains of the same operator', () => {
      expect(shape(parse('a AND (b AND c) AND d'))).toEqual({ and: ['a', 'b', 'c', 'd'] });
      expect(shape(parse('a OR (b OR c)'))).toEqual({ or: ['a', 'b', 'c'] });
    });

    it('reads AND and OR in any case', () => {
      expect(shape(parse('a and b Or c'))).toEqual({ or: [{ and: ['a', 'b'] }, 'c'] });
    });

    it('joins adjacent terms with an implicit AND', () => {
      expect(shape(parse('log4j vendor=apache'))).toEqual({ and: ['log4j', ['vendor', '=', 'apache']] });
      expect(shape(parse('log4j vendor=apache OR xz'))).toEqual({
        or: [{ and: ['log4j', ['vendor', '=', 'apache']] }, 'xz'],
      });
      expect(shape(parse('a(b OR c)'))).toEqual({ and: ['a', { or: ['b', 'c'] }] });
    });

    it('reads bare words and quoted phrases as text searches, with positions', () => {
      expect(parse('remote "code execution"')).toEqual({
        kind: 'and',
        children: [
          { kind: 'text', value: 'remote', quoted: false, position: 0 },
          { kind: 'text', value: 'code execution', quoted: true, position: 7 },
        ],
      });
      expect(shape(parse('CVE-2021-44228'))).toBe('CVE-2021-44228');
    });

    it('reads quoted values with \\" and \\\\ escapes, operators and parentheses inside', () => {
      expect(shape(parse('description:"remote code execution"'))).toEqual([
        'description',
        ':',
        'remote code execution',
      ]);
      expect(shape(parse('title:"say \\"hi\\" (a OR b) c:\\\\d"'))).toEqual([
        'title',
        ':',
        'say "hi" (a OR b) c:\\d',
      ]);
      expect(shape(parse('title:"a"'))).toEqual(['title', ':', 'a']);
    });

    it('keeps AND and OR literal inside quotes', () => {
      expect(shape(parse('"AND"'))).toBe('"AND"');
      expect(shape(parse('title:"x OR y"'))).toEqual(['title', ':', 'x OR y']);
    });

    it('ends a bare value at a blank or parenthesis and allows operator characters inside it', () => {
      expect(shape(parse('(vendor=apache)'))).toEqual(['vendor', '=', 'apache']);
      expect(shape(parse('title:a:b=c'))).toEqual(['title', ':', 'a:b=c']);
    });

    it('reads field names in any case', () => {
      expect(shape(parse('CVSS31>=9'))).toEqual(['cvss31', '>=', 9]);
    });

    it('normalizes vendor and product names as the catalog writes them', () => {
      expect(shape(parse('vendor="Red Hat"'))).toEqual(['vendor', '=', 'red_hat']);
      expect(shape(parse('product:Enterprise_Linux'))).toEqual(['product', ':', 'enterprise_linux']);
    });

    it('normalizes CVE ids for = and !=, upper-cases the text for :', () => {
      expect(shape(parse('cve=CVE-2021-44228'))).toEqual(['cve', '=', 'CVE-2021-44228']);
      expect(shape(parse('cve=cve-2021-44228'))).toEqual(['cve', '=', 'CVE-2021-44228']);
      expect(shape(parse('cve!=2021-44228'))).toEqual(['cve', '!=', 'CVE-2021-44228']);
      expect(shape(parse('cve:2021-44'))).toEqual(['cve', ':', '2021-44']);
      expect(shape(parse('cve:cve-2021'))).toEqual(['cve', ':', 'CVE-2021']);
    });

    it('normalizes CWE ids for = and !=, keeps the text for :', () => {
      expect(shape(parse('cwe=CWE-79'))).toEqual(['cwe', '=', 'CWE-79']);
      expect(shape(parse('cwe=79'))).toEqual(['cwe', '=', 'CWE-79']);
      expect(shape(parse('cwe!=cwe-079'))).toEqual(['cwe', '!=', 'CWE-79']);
      expect(shape(parse('cwe:Injection'))).toEqual(['cwe', ':', 'Injection']);
    });

    it('reads scores as numbers', () => {
      expect(shape(parse('cvss20<=10'))).toEqual(['cvss20', '<=', 10]);
      expect(shape(parse('cvss40>0'))).toEqual(['cvss40', '>', 0]);
      expect(shape(parse('cvss30>=7.5'))).toEqual(['cvss30', '>=', 7.5]);
      expect(shape(parse('epss>.5'))).toEqual(['epss', '>', 0.5]);
      expect(shape(parse('epss>=0.97'))).toEqual(['epss', '>=', 0.97]);
    });

    it('reads kev as a boolean with =, != and :', () => {
      expect(shape(parse('kev=true'))).toEqual(['kev', '=', true]);
      expect(shape(parse('kev:TRUE'))).toEqual(['kev', ':', true]);
      expect(shape(parse('kev!=false'))).toEqual(['kev', '!=', false]);
    });

    it('reads a calendar date as its whole UTC day', () => {
      expect(shape(parse('created>=2024-01-01'))).toEqual([
        'created',
        '>=',
        { from: '2024-01-01T00:00:00.000Z', until: '2024-01-02T00:00:00.000Z' },
      ]);
      expect(shape(parse('updated=2024-02-29'))).toEqual([
        'updated',
        '=',
        { from: '2024-02-29T00:00:00.000Z', until: '2024-03-01T00:00:00.000Z' },
      ]);
    });

    it('reads the years 1 to 99 as written', () => {
      expect(shape(parse('created>=0001-01-01'))).toEqual([
        'created',
        '>=',
        { from: '0001-01-01T00:00:00.000Z', until: '0001-01-02T00:00:00.000Z' },
      ]);
      expect(errorOf('created>=0000-01-01')).toBe(
        'invalid date "0000-01-01" for field created at position 9 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      );
    });

    it('reads relative dates as that long before now', () => {
      const at = (q: string) => (parse(q) as { value: { from: Date } }).value.from.toISOString();
      expect(at('updated>=7d')).toBe('2024-03-24T12:00:00.000Z');
      expect(at('updated>=0d')).toBe('2024-03-31T12:00:00.000Z');
      expect(at('updated>=2w')).toBe('2024-03-17T12:00:00.000Z');
      expect(at('updated>=3m')).toBe('2023-12-31T12:00:00.000Z');
      expect(at('updated>=1y')).toBe('2023-03-31T12:00:00.000Z');
      expect(at('created<10D')).toBe('2024-03-21T12:00:00.000Z');
      // Calendar months, the day clamped to the shorter month.
      expect(at('updated>=1m')).toBe('2024-02-29T12:00:00.000Z');
      expect(at('updated>=13m')).toBe('2023-02-28T12:00:00.000Z');
      const relative = parse('updated>=7d') as { value: { from: Date; until: Date } };
      expect(relative.value.until).toEqual(relative.value.from);
    });

    it('uses the current time when no now is given', () => {
      const before = Date.now();
      const node = parseQuery('updated>=1d') as { value: { from: Date } };
      const t = node.value.from.getTime() + 86_400_000;
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(Date.now());
    });

    it('keeps project names as written', () => {
      expect(shape(parse('project="Web Shop"'))).toEqual(['project', '=', 'Web Shop']);
    });

    it('accepts 1,000 characters, 50 terms and 10 levels of parentheses', () => {
      expect(() => parse(`title:${'x'.repeat(994)}`)).not.toThrow();
      expect(() => parse(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' OR '))).not.toThrow();
      expect(shape(parse(`${'('.repeat(10)}a${')'.repeat(10)}`))).toBe('a');
    });
  });

  describe('parseQuery errors', () => {
    it.each([
      ['vendr=apache', 'unknown field "vendr" at position 0 (did you mean "vendor"?)'],
      ['kev=true AND foo:bar', 'unknown field "foo" at position 13'],
      ['http://example.com', 'unknown field "http" at position 0'],
      ['vendor>apache', 'operator ">" is not valid for field vendor at position 6 (use "=", "!=" or ":")'],
      [
        'cvss31:9',
        'operator ":" is not valid for field cvss31 at position 6 (use "=", "!=", ">", ">=", "<" or "<=")',
      ],
      [
        'created:2024',
        'operator ":" is not valid for field created at position 7 (use "=", "!=", ">", ">=", "<" or "<=")',
      ],
      ['kev>true', 'operator ">" is not valid for field kev at position 3 (use "=", "!=" or ":")'],
      ['project:web', 'operator ":" is not valid for field project at position 7 (use "=" or "!=")'],
      ['cvss31>=', 'expected a value after "cvss31>=" at position 8'],
      ['cvss31>= 9', 'expected a value after "cvss31>=" at position 8'],
      ['(vendor=)', 'expected a value after "vendor=" at position 8'],
      ['title:""', 'expected a value after "title:" at position 6'],
      [
        'cvss31 >= 9',
        'operator ">=" at position 7 must follow a field name directly, without a space (e.g. cvss31>=9)',
      ],
      [
        '=x',
        'operator "=" at position 0 must follow a field name directly, without a space (e.g. cvss31>=9)',
      ],
      ['wow!', 'unexpected character "!" at position 3'],
      ['(vendor=apache', 'unbalanced parenthesis at position 0: "(" is never closed'],
      ['(a OR (b AND c)', 'unbalanced parenthesis at position 0: "(" is never closed'],
      ['kev=true AND a)', 'unbalanced parenthesis at position 14: ")" has no matching "("'],
      [')', 'unbalanced parenthesis at position 0: ")" has no matching "("'],
      ['a ()', 'empty parentheses at position 2'],
      [
        'created=2024-13-01',
        'invalid date "2024-13-01" for field created at position 8 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      ],
      [
        'created>2023-02-29',
        'invalid date "2023-02-29" for field created at position 8 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      ],
      [
        'updated>=yesterday',
        'invalid date "yesterday" for field updated at position 9 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      ],
      [
        'updated>=5h',
        'invalid date "5h" for field updated at position 9 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      ],
      [
        'updated>=3000y',
        'invalid date "3000y" for field updated at position 9 (YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y)',
      ],
      [
        'updated=7d',
        'operator "=" needs a calendar date (YYYY-MM-DD) for field updated at position 8, not a relative date',
      ],
      ['cvss31>=high', 'invalid number "high" for field cvss31 at position 8 (a number from 0 to 10)'],
      ['cvss31>=11', 'invalid number "11" for field cvss31 at position 8 (a number from 0 to 10)'],
      ['cvss31>=-1', 'invalid number "-1" for field cvss31 at position 8 (a number from 0 to 10)'],
      ['cvss31>=1e1', 'invalid number "1e1" for field cvss31 at position 8 (a number from 0 to 10)'],
      ['epss>1.5', 'invalid number "1.5" for field epss at position 5 (a number from 0 to 1)'],
      ['kev=yes', 'invalid value "yes" for field kev at position 4 (true or false)'],
      ['cwe=XSS', 'invalid CWE id "XSS" for field cwe at position 4 (such as CWE-79 or 79)'],
      ['cve=log4shell', 'invalid CVE id "log4shell" for field cve at position 4 (such as CVE-2021-44228)'],
      ['title:"open', 'unterminated quoted string starting at position 6'],
      ['a "b', 'unterminated quoted string starting at position 2'],
      ['""', 'empty quoted phrase at position 0'],
      ['kev=true AND', 'expected a term after "AND" at position 9'],
      ['(a or) b', 'expected a term after "or" at position 3'],
      ['AND kev=true', 'unexpected "AND" at position 0'],
      ['a OR AND b', 'unexpected "AND" at position 5'],
      ['', 'query is empty'],
      ['   ', 'query is empty'],
    ])('%s → %s', (query, message) => {
      expect(errorOf(query)).toBe(message);
    });

    it('rejects a query over 1,000 characters', () => {
      expect(errorOf(`title:${'x'.repeat(995)}`)).toBe('query is too long: 1001 characters (at most 1000)');
    });

    it('rejects more than 50 terms', () => {
      expect(errorOf(Array.from({ length: 51 }, (_, i) => `w${i}`).join(' '))).toBe(
        'query has too many terms (at most 50)',
      );
    });

    it('rejects parentheses nested deeper than 10 levels', () => {
      expect(errorOf(`${'('.repeat(11)}a${')'.repeat(11)}`)).toBe(
        'parentheses nested too deeply at position 10 (at most 10 levels)',
      );
    });

    it('never throws anything but a validation error, whatever the input', () => {
      const alphabet = [
        'a',
        'vendor',
        'cvss31',
        'created',
        '=',
        '!=',
        '>=',
        ':',
        '(',
        ')',
        '"',
        '\\',
        ' ',
        'AND',
        'OR',
        '9',
        '2024-01-01',
        '7d',
        '!',
      ];
      let seed = 42;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let n = 0; n < 2000; n++) {
        const q = Array.from(
          { length: 1 + Math.floor(random() * 12) },
          () => alphabet[Math.floor(random() * alphabet.length)],
        ).join('');
        try {
          parse(q);
        } catch (err) {
          expect(err, q).toBeInstanceOf(AppError);
          expect((err as AppError).code, q).toBe('validation_error');
        }
      }
    });
  });

  describe('collectProjectNames', () => {
    it('lists each project name once, wherever it is in the tree', () => {
      expect(
        collectProjectNames(parse('project=web OR (kev=true AND project!="Back office") project=web')),
      ).toEqual(['web', 'Back office']);
      expect(collectProjectNames(parse('vendor=apache'))).toEqual([]);
    });
  });

  describe('QUERY_FIELD_SPECS', () => {
    it('describes every field of docs/query-language.md with operators from the operator list', () => {
      expect(Object.keys(QUERY_FIELD_SPECS).sort()).toEqual([...QUERY_FIELDS].sort());
      expect([...QUERY_FIELDS].sort()).toEqual(
        [
          'cve',
          'description',
          'title',
          'vendor',
          'product',
          'cwe',
          'cvss20',
          'cvss30',
          'cvss31',
          'cvss40',
          'epss',
          'kev',
          'created',
          'updated',
          'project',
        ].sort(),
      );
      expect([...QUERY_OPERATORS].sort()).toEqual([':', '=', '!=', '>', '>=', '<', '<='].sort());
      for (const spec of Object.values(QUERY_FIELD_SPECS)) {
        for (const op of spec.operators) expect(QUERY_OPERATORS).toContain(op);
      }
    });
  });
});
