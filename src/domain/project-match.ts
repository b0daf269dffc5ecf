/**
 * Why a CVE is (or is not) in a project: which subscribed vendor or product key (or watched keyword,
 * and where it matched) matched, which
 * provider's statement gave the CVE that key (a CPE, or the CNA's own vendor and product text), and
 * when the CVE entered the project; for a CVE outside the project, the keys it has and the nearest
 * subscribed ones. Pure: the facts come from one repository read (`ProjectMatchRepository`).
 *
 * Provenance is the one stored when the CVE was merged (`cve.vendor_sources`, docs/catalog.md "Vendor
 * keys and their provenance"): a CPE of NVD, the CNA or an ADP, or the CNA's text mapped by the alias
 * table with its evidence; and the text-derived keys NVD's CPEs retracted. For a CVE merged before
 * that was stored, it is recomputed from each provider's statement with the rules of the time: a
 * statement's CPEs give `vendor` and `vendor$PRODUCT$product`; a CNA or ADP affected entry without
 * CPEs gives its normalized vendor and product text. A key the statement lists that neither rule
 * gives (an OpenCVE KB section states its vendors as they are) is `stated`.
 */
import {
  normalizeProductName,
  normalizeVendorName,
  splitVendorKey,
  vendorKey,
  vendorKeysOfCpe,
} from './cpe.ts';
import type { KeywordField } from './keywords.ts';
import type { VersionChange } from './inventory.ts';
import type { KeyOrigin, VendorProvenance } from './vendor-provenance.ts';

/** Where a CVE's key comes from: one provider's statement, and how that statement gives it. */
export type KeySource =
  /** From CPEs of the statement (NVD's configurations, or a CNA's or ADP's affected CPEs). */
  | {
      provider: string;
      via: 'cpe';
      /** Whose CPEs: NVD's, the CNA's or an ADP's. */
      source: 'cpe:nvd' | 'cpe:cna' | 'cpe:adp' | 'cpe';
      example: string;
      count: number;
    }
  /**
   * From the affected entry's vendor and product as the CNA (or ADP) wrote them: mapped by the alias
   * table (`rule`: a learned `alias` with its `support` of `records`, the `name` spelled as a CPE
   * names it, the `description`'s words, an `operator`'s alias; `text` what was read), or, for a CVE
   * merged before provenance was stored, normalized (`rule` absent).
   */
  | {
      provider: string;
      via: 'cna_text';
      source: 'cna-text';
      vendor: string;
      product?: string;
      rule?: 'alias' | 'name' | 'spelling' | 'description' | 'operator' | 'cna-name';
      text?: string;
      support?: number;
      records?: number;
    }
  /** Listed by the statement as it is (an OpenCVE knowledge-base section). */
  | { provider: string; via: 'stated'; source: 'stated' };

/** One provider's statement, reduced to what gives vendor keys. */
export interface StatementKeys {
  provider: string;
  vendors: string[];
  cpes: string[];
  affected: { vendor?: string | undefined; product?: string | undefined; cpes?: string[] | undefined }[];
}

/** A recorded change that gave or took vendor keys, oldest first. */
export interface KeyChange {
  at: Date;
  added: string[];
  removed: string[];
}

/** A subscribed key of a project that bears on the CVE (matches it, or is near one of its keys). */
export interface SubscribedKey {
  key: string;
  since: Date;
}

/** What the repository reads for one CVE and the projects asked about. */
export interface MatchFacts {
  cve: {
    cveId: string;
    state: string;
    published: Date;
    vendors: string[];
    /** Stored provenance (`cve.vendor_sources`); null for a CVE merged before it was stored. */
    vendorSources?: VendorProvenance | null;
  };
  statements: StatementKeys[];
  keyChanges: KeyChange[];
  projects: {
    name: string;
    subscriptionsCount: number;
    candidates: SubscribedKey[];
    /** How many keywords the project watches (absent: none). */
    keywordsCount?: number;
    /** Its keywords that match the CVE (`cve_keyword`, migration 0039). */
    keywords?: MatchedKeyword[];
    /** The components of its inventories the CVE affects (`inventory_finding`, migration 0041). */
    components?: MatchedComponent[];
    /** Its inventories whose upload resolved the CVE (every finding gone), with the versions before and after. */
    resolvedBy?: InventoryResolution[];
  }[];
}

/** A component of one of the project's inventories that the CVE affects (docs/inventories.md). */
export interface MatchedComponent {
  inventory: string;
  /** Its position in the SBOM (its page: `…/inventories/<inventory>/components/<position>`). */
  position: number;
  name: string;
  version: string | null;
  purl: string | null;
  foundAt: Date;
}

/** An upload of the inventory resolved the CVE: the components' versions before and after. */
export interface InventoryResolution {
  inventory: string;
  resolvedAt: Date;
  changes: VersionChange[];
}

/** A watched keyword of the project that matches the CVE, and where (docs/catalog.md, "Keyword watches"). */
export interface MatchedKeyword {
  keyword: string;
  fields: KeywordField[];
  /** When the project started watching it. */
  watchedSince: Date;
  /** Since when the keyword has matched the CVE (the CVE's change, or the catalog matched for the keyword). */
  matchesSince: Date;
}

export interface CveKey {
  key: string;
  vendor: string;
  product?: string;
  sources: KeySource[];
}

export interface MatchedKey extends CveKey {
  /** When the project subscribed to the key. */
  subscribedAt: Date;
  /** When a recorded change gave the CVE this key (the last time it gained it); null: before the history. */
  cveHasSince: Date | null;
}

export type NearRelation =
  /** The project subscribes to another product of one of the CVE's vendors. */
  | 'same_vendor'
  /** The project subscribes to a product of the same name under another vendor. */
  | 'same_product'
  /** The project subscribes to a vendor spelled with the same letters and digits (`d-link`, `dlink`). */
  | 'similar_vendor';

export interface NearKey {
  subscribed: string;
  cveKey: string;
  relation: NearRelation;
}

export type MatchOutcome =
  | 'matched'
  /** Keys match, but REJECTED CVEs are never in a project. */
  | 'rejected'
  /** The CVE has no vendor key at all (no CPE and no CNA vendor yet). */
  | 'no_keys'
  /** The project subscribes to nothing and watches no keyword. */
  | 'no_subscriptions'
  /** None of the CVE's keys is subscribed. */
  | 'no_subscribed_key';

export interface ProjectMatch {
  cveId: string;
  project: string;
  inProject: boolean;
  outcome: MatchOutcome;
  /** The subscribed keys the CVE has (also for a REJECTED CVE, which they would have matched). */
  matched: MatchedKey[];
  /** The watched keywords the CVE matches, with where (also for a REJECTED CVE). */
  matchedKeywords: MatchedKeyword[];
  /** The components of the project's inventories the CVE affects (also for a REJECTED CVE). */
  matchedComponents: MatchedComponent[];
  /** The project's inventories whose upload resolved the CVE (it stays in the project, resolved). */
  resolvedBy: InventoryResolution[];
  /**
   * When the CVE entered the project: the earliest, over its matched keys and keywords, of the later
   * of "the CVE has the key" and "the project subscribed to it". `cause` says which of the two it was,
   * or `published` when no recorded change gave the key (the CVE had it before the history began), or
   * `keyword` when it was a keyword (`keyword` set, `key` null): the later of "the project watches
   * it" and "it matches the CVE".
   */
  entered: {
    at: Date;
    key: string | null;
    keyword: string | null;
    cause: 'cve_gained_key' | 'subscribed' | 'published' | 'keyword' | 'inventory';
    /** For `inventory`: the inventory and component whose finding brought it. */
    component?: { inventory: string; name: string; version: string | null };
  } | null;
  /** Every key of the CVE with where it comes from. */
  keys: CveKey[];
  /** Keys the CNA's text gave that NVD's CPEs contradict: not the CVE's (docs/catalog.md). */
  retracted: CveKey[];
  /** Subscribed keys close to one of the CVE's (only when not in the project). */
  near: NearKey[];
  subscriptionsCount: number;
  keywordsCount: number;
}

/** At most this many near keys are named. */
export const NEAR_KEYS_SHOWN = 10;

const squash = (name: string) => name.replace(/[^a-z0-9]/g, '');

/** Each key of the CVE with the statements that give it, in key order. */
export function keySources(vendors: readonly string[], statements: readonly StatementKeys[]): CveKey[] {
  const sources = new Map<string, KeySource[]>(vendors.map((k) => [k, []]));
  for (const s of statements) {
    const listed = new Set(s.vendors);
    const explained = new Set<string>();
    const cpeCounts = new Map<string, { example: string; count: number }>();
    for (const cpe of s.cpes) {
      for (const key of vendorKeysOfCpe(cpe)) {
        if (!listed.has(key)) continue;
        explained.add(key);
        const seen = cpeCounts.get(key);
        if (seen) seen.count += 1;
        else cpeCounts.set(key, { example: cpe, count: 1 });
      }
    }
    for (const [key, { example, count }] of cpeCounts)
      sources.get(key)?.push({ provider: s.provider, via: 'cpe', source: 'cpe', example, count });
    for (const a of s.affected) {
      if (a.cpes?.length) continue;
      const vendor = normalizeVendorName(a.vendor);
      if (!vendor) continue;
      const product = normalizeProductName(a.product, a.vendor);
      const text = { vendor: a.vendor ?? '', ...(a.product ? { product: a.product } : {}) };
      for (const key of product ? [vendor, vendorKey(vendor, product)] : [vendor]) {
        if (!listed.has(key) || explained.has(key)) continue;
        explained.add(key);
        sources.get(key)?.push({ provider: s.provider, via: 'cna_text', source: 'cna-text', ...text });
      }
    }
    for (const key of listed)
      if (!explained.has(key))
        sources.get(key)?.push({ provider: s.provider, via: 'stated', source: 'stated' });
  }
  return [...sources].map(([key, list]) => ({ key, ...splitVendorKey(key), sources: list }));
}

/** A stored origin (domain/vendor-provenance.ts) as a key source of the answer. */
export function keySourceOf(origin: KeyOrigin): KeySource {
  switch (origin.source) {
    case 'cpe:nvd':
    case 'cpe:cna':
    case 'cpe:adp':
      return {
        provider: origin.provider,
        via: 'cpe',
        source: origin.source,
        example: origin.cpe,
        count: origin.count,
      };
    case 'cna-text': {
      // Labels are "Vendor" or "Vendor / Product" as the CNA wrote them (a phrase of the description).
      const at = origin.rule === 'description' ? -1 : origin.text.indexOf(' / ');
      const text =
        at < 0
          ? { vendor: origin.text }
          : { vendor: origin.text.slice(0, at), product: origin.text.slice(at + 3) };
      return {
        provider: origin.provider,
        via: 'cna_text',
        source: 'cna-text',
        ...text,
        rule: origin.rule,
        text: origin.text,
        ...(origin.rule === 'alias' ? { support: origin.support, records: origin.records } : {}),
      };
    }
    case 'stated':
      return { provider: origin.provider, via: 'stated', source: 'stated' };
  }
}

/** The keys of a stored provenance record (`keys` or `retracted`), in key order. */
function storedKeys(record: Record<string, KeyOrigin[]> | undefined): CveKey[] {
  return Object.entries(record ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, origins]) => ({ key, ...splitVendorKey(key), sources: origins.map(keySourceOf) }));
}

/** When the CVE last gained `key` in the recorded changes (null when no change gave it). */
function hasSince(key: string, changes: readonly KeyChange[]): Date | null {
  let since: Date | null = null;
  for (const c of changes) {
    if (c.removed.includes(key)) since = null;
    if (c.added.includes(key) && since === null) since = c.at;
  }
  return since;
}

/** The subscribed keys near the CVE's keys (none of them matches). */
export function nearKeys(cveKeys: readonly string[], candidates: readonly SubscribedKey[]): NearKey[] {
  const own = new Set(cveKeys);
  const split = cveKeys.map((k) => ({ key: k, ...splitVendorKey(k) }));
  const near: NearKey[] = [];
  for (const { key } of candidates) {
    if (own.has(key)) continue;
    const { vendor, product } = splitVendorKey(key);
    const sameVendor =
      product !== undefined && split.find((k) => k.product === undefined && k.vendor === vendor);
    const sameProduct = product !== undefined && split.find((k) => k.product === product);
    const similar = split.find((k) => k.product === undefined && squash(k.vendor) === squash(vendor));
    if (sameVendor) near.push({ subscribed: key, cveKey: sameVendor.key, relation: 'same_vendor' });
    else if (sameProduct) near.push({ subscribed: key, cveKey: sameProduct.key, relation: 'same_product' });
    else if (similar) near.push({ subscribed: key, cveKey: similar.key, relation: 'similar_vendor' });
    if (near.length >= NEAR_KEYS_SHOWN) break;
  }
  return near;
}

/** The answer for each project of the facts, in their order. */
export function explainMatches(facts: MatchFacts): ProjectMatch[] {
  const { cve } = facts;
  const stored = cve.vendorSources;
  const storedByKey = new Map(storedKeys(stored?.keys).map((k) => [k.key, k]));
  const keys = stored
    ? cve.vendors.map((key) => storedByKey.get(key) ?? { key, ...splitVendorKey(key), sources: [] })
    : keySources(cve.vendors, facts.statements);
  const retracted = storedKeys(stored?.retracted);
  const byKey = new Map(keys.map((k) => [k.key, k]));
  return facts.projects.map((p) => {
    const matched: MatchedKey[] = p.candidates
      .filter((s) => byKey.has(s.key))
      .map((s) => ({
        ...byKey.get(s.key)!,
        subscribedAt: s.since,
        cveHasSince: hasSince(s.key, facts.keyChanges),
      }));
    const matchedKeywords = p.keywords ?? [];
    const matchedComponents = p.components ?? [];
    const resolvedBy = p.resolvedBy ?? [];
    const keywordsCount = p.keywordsCount ?? 0;
    const rejected = cve.state === 'REJECTED';
    const outcome: MatchOutcome =
      matched.length || matchedKeywords.length || matchedComponents.length || resolvedBy.length
        ? rejected
          ? 'rejected'
          : 'matched'
        : cve.vendors.length === 0 && keywordsCount === 0
          ? 'no_keys'
          : p.subscriptionsCount === 0 && keywordsCount === 0
            ? 'no_subscriptions'
            : 'no_subscribed_key';
    let entered: ProjectMatch['entered'] = null;
    if (outcome === 'matched') {
      for (const m of matched) {
        const has = m.cveHasSince ?? cve.published;
        const at = m.subscribedAt > has ? m.subscribedAt : has;
        const cause = m.subscribedAt > has ? 'subscribed' : m.cveHasSince ? 'cve_gained_key' : 'published';
        if (!entered || at < entered.at) entered = { at, key: m.key, keyword: null, cause };
      }
      for (const k of matchedKeywords) {
        const at = k.watchedSince > k.matchesSince ? k.watchedSince : k.matchesSince;
        if (!entered || at < entered.at) entered = { at, key: null, keyword: k.keyword, cause: 'keyword' };
      }
      for (const c of matchedComponents)
        if (!entered || c.foundAt < entered.at)
          entered = {
            at: c.foundAt,
            key: null,
            keyword: null,
            cause: 'inventory',
            component: { inventory: c.inventory, name: c.name, version: c.version },
          };
    }
    return {
      cveId: cve.cveId,
      project: p.name,
      inProject: outcome === 'matched',
      outcome,
      matched,
      matchedKeywords,
      matchedComponents,
      resolvedBy,
      entered,
      keys,
      retracted,
      near: matched.length ? [] : nearKeys(cve.vendors, p.candidates),
      subscriptionsCount: p.subscriptionsCount,
      keywordsCount,
    };
  });
}
