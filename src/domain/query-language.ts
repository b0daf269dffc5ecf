/**
 * The advanced CVE query language `q` (reference: docs/query-language.md): parses a query
 * such as `log4j vendor=apache_software_foundation AND (cvss31>=9 OR kev=true)` into a tree with
 * normalized values. Pure: no I/O; "now" for relative dates is injected. Every malformed query is an
 * AppError `validation_error` with `details.q` naming the problem and its (0-based) position.
 */
import { validationError, type AppError } from './errors.ts';
import { CVE_ID_PATTERN } from './cve-id.ts';
import { catalogName } from './cpe.ts';
import { parseTypedDate } from './timestamps.ts';

export const QUERY_FIELDS = [
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
] as const;
export type QueryField = (typeof QUERY_FIELDS)[number];

/** Longest first: the order the tokenizer tries them in. */
export const QUERY_OPERATORS = ['!=', '>=', '<=', ':', '=', '>', '<'] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

export const MAX_QUERY_LENGTH = 1000;
export const MAX_QUERY_TERMS = 50;
export const MAX_QUERY_DEPTH = 10;

export type TextField = 'cve' | 'description' | 'title' | 'vendor' | 'product' | 'cwe' | 'project';
export type NumberField = 'cvss20' | 'cvss30' | 'cvss31' | 'cvss40' | 'epss';
export type DateField = 'created' | 'updated';

const COMPARISONS: readonly QueryOperator[] = ['=', '!=', '>', '>=', '<', '<='];

export interface QueryFieldSpec {
  operators: readonly QueryOperator[];
  /** What the value is, for error messages, the docs and the OpenAPI description. */
  value: string;
  description: string;
}

/** Each field with the operators it accepts: the single source for validation and documentation. */
export const QUERY_FIELD_SPECS: Record<QueryField, QueryFieldSpec> = {
  cve: {
    operators: ['=', '!=', ':'],
    value: 'a CVE id (CVE-2021-44228 or 2021-44228); with ":" any part of one',
    description: 'The CVE id: "=" exact, ":" contains.',
  },
  description: {
    operators: [':', '=', '!='],
    value: 'text',
    description: 'The description: ":" contains (case-insensitive), "=" exact.',
  },
  title: {
    operators: [':', '=', '!='],
    value: 'text',
    description: 'The title: ":" contains (case-insensitive), "=" exact.',
  },
  vendor: {
    operators: ['=', '!=', ':'],
    value: 'a vendor name (red_hat; "Red Hat" is read as red_hat)',
    description: 'An affected vendor: "=" the vendor named, ":" any vendor whose name contains the text.',
  },
  product: {
    operators: ['=', '!=', ':'],
    value: 'a product name, of any vendor',
    description: 'An affected product of any vendor: "=" named so, ":" whose name contains the text.',
  },
  cwe: {
    operators: ['=', '!=', ':'],
    value: 'a CWE id (CWE-79 or 79); with ":" text',
    description: 'A weakness: "=" the CWE id, ":" any weakness whose id or name contains the text.',
  },
  cvss20: { operators: COMPARISONS, value: 'a number from 0 to 10', description: 'CVSS v2.0 base score.' },
  cvss30: { operators: COMPARISONS, value: 'a number from 0 to 10', description: 'CVSS v3.0 base score.' },
  cvss31: { operators: COMPARISONS, value: 'a number from 0 to 10', description: 'CVSS v3.1 base score.' },
  cvss40: { operators: COMPARISONS, value: 'a number from 0 to 10', description: 'CVSS v4.0 base score.' },
  epss: { operators: COMPARISONS, value: 'a number from 0 to 1', description: 'EPSS probability.' },
  kev: {
    operators: ['=', '!=', ':'],
    value: 'true or false',
    description: 'Listed in the CISA Known Exploited Vulnerabilities catalog.',
  },
  created: {
    operators: COMPARISONS,
    value: 'a date YYYY-MM-DD (UTC) or a relative date 7d, 2w, 3m, 1y (that long ago)',
    description: 'Publication date.',
  },
  updated: {
    operators: COMPARISONS,
    value: 'a date YYYY-MM-DD (UTC) or a relative date 7d, 2w, 3m, 1y (that long ago)',
    description: 'Last modification date.',
  },
  project: {
    operators: ['=', '!='],
    value: "the name of one of the organization's projects",
    description: "The CVEs of a project of the caller's organization (its subscribed vendors and products).",
  },
};

/**
 * A date value as the half-open range [from, until): a calendar date covers its whole UTC day; a
 * relative date is an instant (from = until).
 */
export interface DateRange {
  from: Date;
  until: Date;
}

interface TermBase {
  kind: 'term';
  op: QueryOperator;
  /** Where the term starts in the query. */
  position: number;
  /** The value as written (quotes removed). */
  raw: string;
}

/**
 * One `field<op>value`, its value normalized: vendor and product names as catalog names (lower case,
 * blanks to `_`), CVE ids upper case with the `CVE-` prefix for `=`/`!=`, CWE ids as `CWE-79` for
 * `=`/`!=`.
 */
export type TermNode = TermBase &
  (
    | { field: TextField; value: string }
    | { field: NumberField; value: number }
    | { field: 'kev'; value: boolean }
    | { field: DateField; value: DateRange }
  );

/** A bare word or quoted phrase: a substring of the id, title, description or vendor and product names (as `search`). */
export interface TextNode {
  kind: 'text';
  value: string;
  /** A quoted phrase matches its words in order. */
  quoted: boolean;
  position: number;
}

export interface BooleanNode {
  kind: 'and' | 'or';
  /** At least two. */
  children: QueryNode[];
}

export type QueryNode = BooleanNode | TermNode | TextNode;

export interface ParseOptions {
  /** The instant relative dates count back from (default: the current time). */
  now?: Date;
}

const queryError = (message: string): AppError => validationError({ q: [message] });

/** Parses a query. Throws an AppError `validation_error` (details.q) when it is malformed. */
export function parseQuery(text: string, options: ParseOptions = {}): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) {
    throw queryError(`query is too long: ${text.length} characters (at most ${MAX_QUERY_LENGTH})`);
  }
  const tokens = tokenize(text, options.now ?? new Date());
  if (tokens.length === 0) throw queryError('query is empty');
  return new Parser(tokens).parseQuery();
}

/** The project names a query refers to, for resolving them before compiling it. */
export function collectProjectNames(node: QueryNode): string[] {
  const names = new Set<string>();
  const visit = (n: QueryNode): void => {
    if (n.kind === 'and' || n.kind === 'or') n.children.forEach(visit);
    else if (n.kind === 'term' && n.field === 'project') names.add(n.value);
  };
  visit(node);
  return [...names];
}

// ---------------------------------------------------------------------------------------------
// Tokenizer

type Token =
  | { type: '(' | ')'; position: number }
  | { type: 'AND' | 'OR'; position: number; text: string }
  | { type: 'term'; position: number; node: TermNode }
  | { type: 'text'; position: number; node: TextNode };

const OPERATOR_CHARS = ':=!<>';
const isSpace = (c: string) => /\s/.test(c);
/** Characters that end a bare word: blanks, parentheses, quotes and operator characters. */
const endsWord = (c: string) =>
  isSpace(c) || c === '(' || c === ')' || c === '"' || OPERATOR_CHARS.includes(c);
/** Characters that end a bare value: blanks, parentheses and quotes (operator characters may appear). */
const endsValue = (c: string) => isSpace(c) || c === '(' || c === ')' || c === '"';

function tokenize(text: string, now: Date): Token[] {
  const tokens: Token[] = [];
  let terms = 0;
  let i = 0;

  const countTerm = () => {
    if (++terms > MAX_QUERY_TERMS) {
      throw queryError(`query has too many terms (at most ${MAX_QUERY_TERMS})`);
    }
  };

  /** Reads a quoted string starting at `i` (on the opening quote); `\"` and `\\` are escapes. */
  const readQuoted = (): string => {
    const start = i;
    let value = '';
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
        value += text[i + 1];
        i += 2;
      } else if (c === '"') {
        i++;
        return value;
      } else {
        value += c;
        i++;
      }
    }
    throw queryError(`unterminated quoted string starting at position ${start}`);
  };

  const readOperator = (): QueryOperator | undefined => {
    const op = QUERY_OPERATORS.find((o) => text.startsWith(o, i));
    if (op) i += op.length;
    return op;
  };

  while (i < text.length) {
    const c = text[i]!;
    const start = i;
    if (isSpace(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ type: c, position: i });
      i++;
    } else if (c === '"') {
      const value = readQuoted();
      if (value.trim() === '') throw queryError(`empty quoted phrase at position ${start}`);
      countTerm();
      tokens.push({
        type: 'text',
        position: start,
        node: { kind: 'text', value, quoted: true, position: start },
      });
    } else if (OPERATOR_CHARS.includes(c)) {
      const op = readOperator();
      if (!op) throw queryError(`unexpected character "${c}" at position ${start}`);
      throw queryError(
        `operator "${op}" at position ${start} must follow a field name directly, without a space (e.g. cvss31>=9)`,
      );
    } else {
      while (i < text.length && !endsWord(text[i]!)) i++;
      const word = text.slice(start, i);
      if (i < text.length && OPERATOR_CHARS.includes(text[i]!)) {
        // field<op>value
        const opPosition = i;
        const op = readOperator();
        if (!op) throw queryError(`unexpected character "${text[opPosition]}" at position ${opPosition}`);
        const field = word.toLowerCase();
        if (!isQueryField(field)) {
          const hint = closestField(field);
          throw queryError(
            `unknown field "${word}" at position ${start}${hint ? ` (did you mean "${hint}"?)` : ''}`,
          );
        }
        const spec = QUERY_FIELD_SPECS[field];
        if (!spec.operators.includes(op)) {
          throw queryError(
            `operator "${op}" is not valid for field ${field} at position ${opPosition} (use ${listOf(spec.operators)})`,
          );
        }
        const valuePosition = i;
        let raw: string;
        if (text[i] === '"') {
          raw = readQuoted();
        } else {
          while (i < text.length && !endsValue(text[i]!)) i++;
          raw = text.slice(valuePosition, i);
        }
        if (raw.trim() === '') {
          throw queryError(
            `expected a value after "${text.slice(start, valuePosition)}" at position ${valuePosition}`,
          );
        }
        countTerm();
        tokens.push({
          type: 'term',
          position: start,
          node: makeTerm(field, op, raw, start, valuePosition, now),
        });
      } else if (/^(and|or)$/i.test(word)) {
        tokens.push({ type: word.toUpperCase() as 'AND' | 'OR', position: start, text: word });
      } else {
        countTerm();
        tokens.push({
          type: 'text',
          position: start,
          node: { kind: 'text', value: word, quoted: false, position: start },
        });
      }
    }
  }
  return tokens;
}

/** `"=", "!=" or ":"` */
function listOf(operators: readonly string[]): string {
  const quoted = operators.map((o) => `"${o}"`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted.join('');
}

function isQueryField(name: string): name is QueryField {
  return (QUERY_FIELDS as readonly string[]).includes(name);
}

/** The field a misspelt name most likely meant (edit distance at most 2), for the error message. */
function closestField(name: string): QueryField | undefined {
  let best: { field: QueryField; distance: number } | undefined;
  for (const field of QUERY_FIELDS) {
    const distance = editDistance(name, field);
    if (distance <= 2 && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

// ---------------------------------------------------------------------------------------------
// Values

const NUMBER_PATTERN = /^(\d+(\.\d*)?|\.\d+)$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const RELATIVE_PATTERN = /^(\d{1,6})([dwmy])$/i;
const DAY_MS = 86_400_000;

/** Validates the operator against the value and normalizes the value for its field. */
function makeTerm(
  field: QueryField,
  op: QueryOperator,
  raw: string,
  position: number,
  valuePosition: number,
  now: Date,
): TermNode {
  const base = { kind: 'term' as const, op, position, raw };
  const invalid = (what: string, expected: string) =>
    queryError(`invalid ${what} "${raw}" for field ${field} at position ${valuePosition} (${expected})`);
  switch (field) {
    case 'cve': {
      if (op === ':') return { ...base, field, value: raw.trim().toUpperCase() };
      let id = raw.trim().toUpperCase();
      if (/^\d{4}-\d{4,}$/.test(id)) id = `CVE-${id}`;
      if (!CVE_ID_PATTERN.test(id)) throw invalid('CVE id', 'such as CVE-2021-44228');
      return { ...base, field, value: id };
    }
    case 'description':
    case 'title':
    case 'project':
      return { ...base, field, value: raw };
    case 'vendor':
    case 'product':
      return { ...base, field, value: catalogName(raw) };
    case 'cwe': {
      if (op === ':') return { ...base, field, value: raw.trim() };
      const m = /^(?:CWE-)?(\d+)$/i.exec(raw.trim());
      if (!m) throw invalid('CWE id', 'such as CWE-79 or 79');
      return { ...base, field, value: `CWE-${Number(m[1])}` };
    }
    case 'cvss20':
    case 'cvss30':
    case 'cvss31':
    case 'cvss40':
    case 'epss': {
      const max = field === 'epss' ? 1 : 10;
      const value = Number(raw);
      if (!NUMBER_PATTERN.test(raw) || value > max) throw invalid('number', `a number from 0 to ${max}`);
      return { ...base, field, value };
    }
    case 'kev': {
      const v = raw.toLowerCase();
      if (v !== 'true' && v !== 'false') throw invalid('value', 'true or false');
      return { ...base, field, value: v === 'true' };
    }
    case 'created':
    case 'updated': {
      const value = parseDate(raw, now);
      if (!value) throw invalid('date', 'YYYY-MM-DD or a relative date such as 7d, 2w, 3m, 1y');
      if ((op === '=' || op === '!=') && value.from.getTime() === value.until.getTime()) {
        throw queryError(
          `operator "${op}" needs a calendar date (YYYY-MM-DD) for field ${field} at position ${valuePosition}, not a relative date`,
        );
      }
      return { ...base, field, value };
    }
  }
}

/** `2024-03-29` → that UTC day; `7d`/`2w`/`3m`/`1y` → that long before `now`; undefined if invalid. */
function parseDate(raw: string, now: Date): DateRange | undefined {
  if (DATE_PATTERN.test(raw)) {
    // The strict reader every typed date goes through: 2024-02-30 is an error, not March 1st.
    const parsed = parseTypedDate(raw);
    if ('problem' in parsed) return undefined;
    return { from: parsed.date, until: new Date(parsed.date.getTime() + DAY_MS) };
  }
  const relative = RELATIVE_PATTERN.exec(raw);
  if (!relative) return undefined;
  const amount = Number(relative[1]);
  const unit = relative[2]!.toLowerCase();
  let at: Date;
  if (unit === 'd' || unit === 'w') {
    at = new Date(now.getTime() - amount * (unit === 'w' ? 7 : 1) * DAY_MS);
  } else {
    const months = unit === 'y' ? amount * 12 : amount;
    at = minusMonths(now, months);
  }
  // Far enough back to leave the range PostgreSQL and Date both handle: no value for a CVE anyway.
  if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1) return undefined;
  return { from: at, until: at };
}

/** Calendar months back, the day clamped to the target month's length (March 31 − 1m = February 29). */
function minusMonths(now: Date, months: number): Date {
  const totalMonths = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month]!;
  const result = new Date(now.getTime());
  result.setUTCFullYear(year, month, Math.min(now.getUTCDate(), daysInMonth));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Parser: query = or; or = and {OR and}; and = primary {[AND] primary}; primary = "(" or ")" | term | text

class Parser {
  private index = 0;

  constructor(private readonly tokens: Token[]) {}

  parseQuery(): QueryNode {
    const node = this.parseOr(0);
    const next = this.peek();
    if (next) {
      // parseOr stops only at ")" or the end.
      throw queryError(`unbalanced parenthesis at position ${next.position}: ")" has no matching "("`);
    }
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private parseOr(depth: number): QueryNode {
    const children = [this.parseAnd(depth)];
    let next = this.peek();
    while (next?.type === 'OR') {
      this.index++;
      this.expectOperand(next);
      children.push(this.parseAnd(depth));
      next = this.peek();
    }
    return combine('or', children);
  }

  private parseAnd(depth: number): QueryNode {
    const children = [this.parsePrimary(depth)];
    let next = this.peek();
    while (next && next.type !== 'OR' && next.type !== ')') {
      if (next.type === 'AND') {
        this.index++;
        this.expectOperand(next);
      }
      children.push(this.parsePrimary(depth));
      next = this.peek();
    }
    return combine('and', children);
  }

  /** After AND/OR: something must follow. */
  private expectOperand(keyword: Extract<Token, { type: 'AND' | 'OR' }>): void {
    const next = this.peek();
    if (!next || next.type === ')') {
      throw queryError(`expected a term after "${keyword.text}" at position ${keyword.position}`);
    }
  }

  private parsePrimary(depth: number): QueryNode {
    const token = this.peek();
    if (!token) throw new Error('parsePrimary at the end of the query');
    this.index++;
    switch (token.type) {
      case 'term':
      case 'text':
        return token.node;
      case 'AND':
      case 'OR':
        throw queryError(`unexpected "${token.text}" at position ${token.position}`);
      case ')':
        throw queryError(`unbalanced parenthesis at position ${token.position}: ")" has no matching "("`);
      case '(': {
        if (depth >= MAX_QUERY_DEPTH) {
          throw queryError(
            `parentheses nested too deeply at position ${token.position} (at most ${MAX_QUERY_DEPTH} levels)`,
          );
        }
        const next = this.peek();
        if (!next)
          throw queryError(`unbalanced parenthesis at position ${token.position}: "(" is never closed`);
        if (next.type === ')') throw queryError(`empty parentheses at position ${token.position}`);
        const inner = this.parseOr(depth + 1);
        if (this.peek()?.type !== ')') {
          throw queryError(`unbalanced parenthesis at position ${token.position}: "(" is never closed`);
        }
        this.index++;
        return inner;
      }
    }
  }
}

/** One child stands for itself; nested nodes of the same kind are flattened. */
function combine(kind: 'and' | 'or', children: QueryNode[]): QueryNode {
  if (children.length === 1) return children[0]!;
  return { kind, children: children.flatMap((c) => (c.kind === kind ? c.children : [c])) };
}
