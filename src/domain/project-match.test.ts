import { describe, expect, it } from 'vitest';
import { explainMatches, keySources, nearKeys, type MatchFacts } from './project-match.ts';

const at = (day: string) => new Date(`${day}T00:00:00Z`);

const facts = (over: Partial<MatchFacts> = {}): MatchFacts => ({
  cve: {
    cveId: 'CVE-2024-4577',
    state: 'PUBLISHED',
    published: at('2024-06-09'),
    vendors: ['php', 'php$PRODUCT$php', 'php_group', 'php_group$PRODUCT$php'],
  },
  statements: [
    {
      provider: 'mitre',
      vendors: ['php_group', 'php_group$PRODUCT$php'],
      cpes: [],
      affected: [{ vendor: 'PHP Group', product: 'PHP' }],
    },
    {
      provider: 'vulnrichment',
      vendors: ['php', 'php$PRODUCT$php'],
      cpes: ['cpe:2.3:a:php:php:*:*:*:*:*:*:*:*', 'cpe:2.3:a:php:php:8.1.0:*:*:*:*:*:*:*'],
      affected: [{ vendor: 'php', product: 'php', cpes: ['cpe:2.3:a:php:php:*:*:*:*:*:*:*:*'] }],
    },
  ],
  keyChanges: [
    { at: at('2024-06-09'), added: ['php_group', 'php_group$PRODUCT$php'], removed: [] },
    { at: at('2024-06-12'), added: ['php', 'php$PRODUCT$php'], removed: [] },
  ],
  projects: [],
  ...over,
});

describe('keySources', () => {
  it('names the CPEs of a statement (an example and how many) and the CNA text a key came from', () => {
    const keys = keySources(facts().cve.vendors, facts().statements);
    expect(keys.find((k) => k.key === 'php$PRODUCT$php')).toEqual({
      key: 'php$PRODUCT$php',
      vendor: 'php',
      product: 'php',
      sources: [
        {
          provider: 'vulnrichment',
          via: 'cpe',
          source: 'cpe',
          example: 'cpe:2.3:a:php:php:*:*:*:*:*:*:*:*',
          count: 2,
        },
      ],
    });
    // "PHP Group" normalizes to `php`; the key the CNA's statement lists is `php_group` (an older rule
    // wrote it): what the statement lists and no rule gives is "stated".
    expect(keys.find((k) => k.key === 'php_group')?.sources).toEqual([
      { provider: 'mitre', via: 'stated', source: 'stated' },
    ]);
  });

  it('attributes normalized CNA text when the statement lists the key it gives', () => {
    const [vendor, product] = keySources(
      ['apache', 'apache$PRODUCT$log4j2'],
      [
        {
          provider: 'mitre',
          vendors: ['apache', 'apache$PRODUCT$log4j2'],
          cpes: [],
          affected: [{ vendor: 'Apache Software Foundation', product: 'Apache Log4j2' }],
        },
      ],
    );
    expect(vendor!.sources).toEqual([
      {
        provider: 'mitre',
        via: 'cna_text',
        source: 'cna-text',
        vendor: 'Apache Software Foundation',
        product: 'Apache Log4j2',
      },
    ]);
    expect(product!.sources).toEqual(vendor!.sources);
  });
});

describe('explainMatches with stored provenance', () => {
  it('names the stored origins, the CNA text with its alias evidence, and the retracted keys', () => {
    const [answer] = explainMatches(
      facts({
        cve: {
          cveId: 'CVE-2024-2555',
          state: 'PUBLISHED',
          published: at('2024-03-17'),
          vendors: ['oretnom23'],
          vendorSources: {
            keys: {
              oretnom23: [
                {
                  source: 'cpe:nvd',
                  provider: 'nvd',
                  cpe: 'cpe:2.3:a:oretnom23:x:1:*:*:*:*:*:*:*',
                  count: 1,
                },
              ],
            },
            retracted: {
              sourcecodester: [
                {
                  source: 'cna-text',
                  rule: 'alias',
                  text: 'SourceCodester',
                  support: 3,
                  records: 4,
                  provider: 'mitre',
                },
              ],
            },
          },
        },
        projects: [
          { name: 'p', subscriptionsCount: 1, candidates: [{ key: 'oretnom23', since: at('2024-01-01') }] },
        ],
      }),
    );
    expect(answer!.matched.map((k) => k.sources)).toEqual([
      [
        {
          provider: 'nvd',
          via: 'cpe',
          source: 'cpe:nvd',
          example: 'cpe:2.3:a:oretnom23:x:1:*:*:*:*:*:*:*',
          count: 1,
        },
      ],
    ]);
    expect(answer!.retracted).toEqual([
      {
        key: 'sourcecodester',
        vendor: 'sourcecodester',
        sources: [
          {
            provider: 'mitre',
            via: 'cna_text',
            source: 'cna-text',
            vendor: 'SourceCodester',
            rule: 'alias',
            text: 'SourceCodester',
            support: 3,
            records: 4,
          },
        ],
      },
    ]);
  });
});

describe('explainMatches', () => {
  it('dates entry by the change that gave the key when the project subscribed before', () => {
    const [p] = explainMatches(
      facts({
        projects: [
          { name: 'web', subscriptionsCount: 3, candidates: [{ key: 'php', since: at('2024-01-01') }] },
        ],
      }),
    );
    expect(p).toMatchObject({ inProject: true, outcome: 'matched', near: [] });
    expect(p!.matched.map((m) => [m.key, m.cveHasSince])).toEqual([['php', at('2024-06-12')]]);
    expect(p!.entered).toEqual({ at: at('2024-06-12'), key: 'php', keyword: null, cause: 'cve_gained_key' });
  });

  it('dates entry by the subscription when the CVE had the key first, the earliest key winning', () => {
    const [p] = explainMatches(
      facts({
        projects: [
          {
            name: 'web',
            subscriptionsCount: 2,
            candidates: [
              { key: 'php', since: at('2024-07-01') },
              { key: 'php_group', since: at('2024-08-01') },
            ],
          },
        ],
      }),
    );
    expect(p!.entered).toEqual({ at: at('2024-07-01'), key: 'php', keyword: null, cause: 'subscribed' });
  });

  it('falls back to publication when no recorded change gave the key, and forgets a key removed since', () => {
    const [p] = explainMatches(
      facts({
        keyChanges: [
          { at: at('2024-06-10'), added: ['php'], removed: [] },
          { at: at('2024-06-11'), added: [], removed: ['php'] },
        ],
        projects: [
          { name: 'web', subscriptionsCount: 1, candidates: [{ key: 'php', since: at('2024-01-01') }] },
        ],
      }),
    );
    expect(p!.matched[0]!.cveHasSince).toBeNull();
    expect(p!.entered).toEqual({ at: at('2024-06-09'), key: 'php', keyword: null, cause: 'published' });
  });

  it('keeps a REJECTED CVE out, naming the keys that would have matched', () => {
    const [p] = explainMatches(
      facts({
        cve: { ...facts().cve, state: 'REJECTED' },
        projects: [
          { name: 'web', subscriptionsCount: 1, candidates: [{ key: 'php', since: at('2024-01-01') }] },
        ],
      }),
    );
    expect(p).toMatchObject({ inProject: false, outcome: 'rejected', entered: null });
    expect(p!.matched.map((m) => m.key)).toEqual(['php']);
  });

  it('names a matching keyword and where, entering through it when it matched first', () => {
    const keyword = {
      keyword: 'xz',
      fields: ['title' as const, 'description' as const],
      watchedSince: at('2024-03-01'),
      matchesSince: at('2024-04-01'),
    };
    const [p] = explainMatches(
      facts({
        projects: [
          {
            name: 'web',
            subscriptionsCount: 1,
            candidates: [{ key: 'php', since: at('2024-12-01') }],
            keywordsCount: 2,
            keywords: [keyword],
          },
        ],
      }),
    );
    expect(p).toMatchObject({
      inProject: true,
      outcome: 'matched',
      matchedKeywords: [keyword],
      keywordsCount: 2,
    });
    expect(p!.entered).toEqual({ at: at('2024-04-01'), key: null, keyword: 'xz', cause: 'keyword' });
    // Only a keyword: in the project all the same; without any, a project watching keywords is not "no subscriptions".
    const [only] = explainMatches(
      facts({
        projects: [
          { name: 'kw', subscriptionsCount: 0, candidates: [], keywordsCount: 1, keywords: [keyword] },
        ],
      }),
    );
    expect(only).toMatchObject({
      inProject: true,
      matched: [],
      entered: { keyword: 'xz', cause: 'keyword' },
    });
    const [none] = explainMatches(
      facts({
        projects: [{ name: 'kw', subscriptionsCount: 0, candidates: [], keywordsCount: 1, keywords: [] }],
      }),
    );
    expect(none).toMatchObject({ inProject: false, outcome: 'no_subscribed_key', matchedKeywords: [] });
  });

  it('says why not: no keys, no subscriptions, or no subscribed key', () => {
    const none = { name: 'empty', subscriptionsCount: 0, candidates: [] };
    const other = { name: 'other', subscriptionsCount: 5, candidates: [] };
    expect(explainMatches(facts({ projects: [none, other] })).map((p) => p.outcome)).toEqual([
      'no_subscriptions',
      'no_subscribed_key',
    ]);
    expect(
      explainMatches(facts({ cve: { ...facts().cve, vendors: [] }, projects: [other] }))[0]!.outcome,
    ).toBe('no_keys');
  });
});

describe('nearKeys', () => {
  const cve = ['google', 'google$PRODUCT$android', 'dlink', 'php_group$PRODUCT$php'];
  const sub = (key: string) => ({ key, since: at('2024-01-01') });

  it('finds another product of a vendor, a product under another vendor, a vendor spelled alike', () => {
    expect(nearKeys(cve, [sub('google$PRODUCT$chrome'), sub('php$PRODUCT$php'), sub('d-link')])).toEqual([
      { subscribed: 'google$PRODUCT$chrome', cveKey: 'google', relation: 'same_vendor' },
      { subscribed: 'php$PRODUCT$php', cveKey: 'php_group$PRODUCT$php', relation: 'same_product' },
      { subscribed: 'd-link', cveKey: 'dlink', relation: 'similar_vendor' },
    ]);
  });

  it('names nothing for a key unrelated to the CVE', () => {
    expect(nearKeys(cve, [sub('microsoft'), sub('microsoft$PRODUCT$edge')])).toEqual([]);
  });
});
