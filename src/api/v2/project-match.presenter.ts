/** The answer to "why is this CVE (not) in this project?" (`ProjectMatchService`) as API v2 writes it. */
import { Type } from '@fastify/type-provider-typebox';
import type { CveKey, KeySource, ProjectMatch } from '../../domain/project-match.ts';
import { KEYWORD_FIELDS } from '../../domain/keywords.ts';
import { toMicrosZ } from '../../domain/timestamps.ts';
import { Timestamp } from './schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Source = Type.Object(
  {
    provider: Type.String({ description: 'Whose statement: mitre (the CVE record), vulnrichment, nvd, …' }),
    via: Type.Union([Type.Literal('cpe'), Type.Literal('cna_text'), Type.Literal('stated')], {
      description:
        '`cpe`: from CPEs of the statement (`cpe` one of them, `count` how many); `cna_text`: from an ' +
        "affected entry's vendor and product as written (`vendor`, `product`), mapped by the alias " +
        'table (`rule`, `text`, `support`, `records`); `stated`: listed by the statement as it is.',
    }),
    source: Type.Union(
      ['cpe:nvd', 'cpe:cna', 'cpe:adp', 'cpe', 'cna-text', 'stated'].map((s) => Type.Literal(s)),
      {
        description:
          "Where the key comes from: NVD's CPEs (`cpe:nvd`), the CNA's (`cpe:cna`), an ADP's such as " +
          "CISA-ADP's (`cpe:adp`), the CNA's (or an ADP's) text (`cna-text`), or `stated`; `cpe` for a " +
          'CVE merged before provenance was stored.',
      },
    ),
    cpe: Type.Optional(Type.String()),
    count: Type.Optional(Type.Integer()),
    vendor: Type.Optional(Type.String()),
    product: Type.Optional(Type.String()),
    rule: Type.Optional(
      Type.Union(
        ['alias', 'name', 'spelling', 'description', 'operator', 'cna-name'].map((r) => Type.Literal(r)),
        {
          description:
            'How the text became the key: a learned `alias` (`support` of the `records` naming the text ' +
            'had the key), the `name` spelled as a CPE names it, words of the `description`, an ' +
            "`operator`'s alias. Absent for a CVE merged before provenance was stored.",
        },
      ),
    ),
    text: Type.Optional(Type.String({ description: 'The text read: "Vendor" or "Vendor / Product".' })),
    support: Type.Optional(Type.Integer()),
    records: Type.Optional(Type.Integer()),
  },
  { description: 'Where a key comes from.' },
);

const Key = Type.Object({
  key: Type.String({ description: '`vendor` or `vendor$PRODUCT$product`.' }),
  vendor: Type.String(),
  product: Nullable(Type.String()),
  sources: Type.Array(Source),
});

export const ProjectMatchItem = Type.Object({
  cve_id: Type.String(),
  project: Type.String(),
  in_project: Type.Boolean(),
  outcome: Type.Union(
    ['matched', 'rejected', 'no_keys', 'no_subscriptions', 'no_subscribed_key'].map((o) => Type.Literal(o)),
    {
      description:
        '`matched`; else why not: `rejected` (REJECTED CVEs are never in a project), `no_keys` (no vendor ' +
        'is known for the CVE), `no_subscriptions`, `no_subscribed_key`.',
    },
  ),
  matched: Type.Array(
    Type.Object({
      ...Key.properties,
      subscribed_at: Timestamp,
      cve_has_since: Nullable(Timestamp),
    }),
    { description: 'The subscribed keys the CVE has.' },
  ),
  matched_keywords: Type.Array(
    Type.Object({
      keyword: Type.String(),
      fields: Type.Array(Type.Union(KEYWORD_FIELDS.map((f) => Type.Literal(f))), {
        description:
          'Where it matched: the CNA or ADP affected `vendor` or `product` names, the `title`, the `description`.',
      }),
      watched_since: Timestamp,
      matches_since: Timestamp,
    }),
    { description: 'The watched keywords the CVE matches (as whole words), and where.' },
  ),
  matched_components: Type.Array(
    Type.Object({
      inventory: Type.String(),
      name: Type.String(),
      version: Nullable(Type.String()),
      purl: Nullable(Type.String()),
      found_at: Timestamp,
    }),
    { description: "The components of the project's inventories (SBOMs) the CVE affects at their version." },
  ),
  resolved_by: Type.Array(
    Type.Object({
      inventory: Type.String(),
      resolved_at: Timestamp,
      changes: Type.Array(
        Type.Object({ name: Type.String(), before: Nullable(Type.String()), after: Nullable(Type.String()) }),
      ),
    }),
    {
      description:
        "The project's inventories whose upload resolved the CVE (every finding gone), with the versions before and after.",
    },
  ),
  entered: Nullable(
    Type.Object(
      {
        at: Timestamp,
        key: Nullable(Type.String({ description: 'The key it entered through; null for a keyword.' })),
        keyword: Nullable(Type.String({ description: 'The keyword it entered through (cause `keyword`).' })),
        component: Type.Optional(
          Type.Object(
            { inventory: Type.String(), name: Type.String(), version: Nullable(Type.String()) },
            { description: 'The inventory component it entered through (cause `inventory`).' },
          ),
        ),
        cause: Type.Union([
          Type.Literal('cve_gained_key'),
          Type.Literal('subscribed'),
          Type.Literal('published'),
          Type.Literal('keyword'),
          Type.Literal('inventory'),
        ]),
      },
      {
        description:
          'When the CVE entered the project, through which key or keyword, and what made it enter.',
      },
    ),
  ),
  keys: Type.Array(Key, { description: 'Every key of the CVE.' }),
  retracted: Type.Array(Key, {
    description:
      "Keys the CNA's text gave that NVD's CPEs contradict (NVD names CPEs, none with this key): not " +
      'the CVE’s keys; a project subscribed to one alone no longer lists the CVE.',
  }),
  near: Type.Array(
    Type.Object({
      subscribed: Type.String(),
      cve_key: Type.String(),
      relation: Type.Union([
        Type.Literal('same_vendor'),
        Type.Literal('same_product'),
        Type.Literal('similar_vendor'),
      ]),
    }),
    { description: 'Subscribed keys close to one of the CVE’s, when it is not in the project.' },
  ),
  subscriptions_count: Type.Integer(),
  keywords_count: Type.Integer({ description: 'How many keywords the project watches.' }),
});

function source(s: KeySource) {
  switch (s.via) {
    case 'cpe':
      return { provider: s.provider, via: s.via, source: s.source, cpe: s.example, count: s.count };
    case 'cna_text':
      return {
        provider: s.provider,
        via: s.via,
        source: s.source,
        vendor: s.vendor,
        ...(s.product ? { product: s.product } : {}),
        ...(s.rule ? { rule: s.rule } : {}),
        ...(s.text !== undefined ? { text: s.text } : {}),
        ...(s.support !== undefined ? { support: s.support, records: s.records } : {}),
      };
    case 'stated':
      return { provider: s.provider, via: s.via, source: s.source };
  }
}

const key = (k: CveKey) => ({
  key: k.key,
  vendor: k.vendor,
  product: k.product ?? null,
  sources: k.sources.map(source),
});

export function projectMatchItem(m: ProjectMatch) {
  return {
    cve_id: m.cveId,
    project: m.project,
    in_project: m.inProject,
    outcome: m.outcome,
    matched: m.matched.map((k) => ({
      ...key(k),
      subscribed_at: toMicrosZ(k.subscribedAt),
      cve_has_since: k.cveHasSince ? toMicrosZ(k.cveHasSince) : null,
    })),
    matched_keywords: m.matchedKeywords.map((k) => ({
      keyword: k.keyword,
      fields: k.fields,
      watched_since: toMicrosZ(k.watchedSince),
      matches_since: toMicrosZ(k.matchesSince),
    })),
    matched_components: m.matchedComponents.map((c) => ({
      inventory: c.inventory,
      name: c.name,
      version: c.version,
      purl: c.purl,
      found_at: toMicrosZ(c.foundAt),
    })),
    resolved_by: m.resolvedBy.map((r) => ({
      inventory: r.inventory,
      resolved_at: toMicrosZ(r.resolvedAt),
      changes: r.changes.map((c) => ({ name: c.name, before: c.before, after: c.after })),
    })),
    entered: m.entered
      ? {
          at: toMicrosZ(m.entered.at),
          key: m.entered.key,
          keyword: m.entered.keyword,
          ...(m.entered.component ? { component: m.entered.component } : {}),
          cause: m.entered.cause,
        }
      : null,
    keys: m.keys.map(key),
    retracted: m.retracted.map(key),
    near: m.near.map((n) => ({ subscribed: n.subscribed, cve_key: n.cveKey, relation: n.relation })),
    subscriptions_count: m.subscriptionsCount,
    keywords_count: m.keywordsCount,
  };
}
