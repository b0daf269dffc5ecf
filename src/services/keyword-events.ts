/**
 * The event processor's keyword side (docs/catalog.md, "Keyword watches"): for a chunk of recorded
 * changes, the watched keywords are matched against each changed CVE as it is now (one
 * `KeywordMatcher` for all of them: a lookup per word of the CVE's texts, whatever the number of
 * projects), `cve_keyword` is made to agree, and each item gets a flag per keyword it matches now or
 * matched before, beside its vendor keys' (`keyFlags`): so a CVE a keyword newly matches enters the
 * projects watching it, with the same rules as a subscribed key. An EPSS move flags the keywords
 * stored for its CVE.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { EventStream, StreamItem } from '../db/event.repository.ts';
import { KeywordRepository, type KeywordMatchRow } from '../db/keyword.repository.ts';
import { KeywordMatcher, keywordFlagKey } from '../domain/keywords.ts';
import type { KeyFlag } from '../domain/project-events.ts';

/** Keeps `cve_keyword` for the chunk's CVEs and returns the keyword flags of each item, by seq. */
export async function keywordFlags(
  tx: Transaction<DB>,
  stream: EventStream,
  items: readonly StreamItem[],
): Promise<Map<number, KeyFlag[]>> {
  const out = new Map<number, KeyFlag[]>();
  const repo = new KeywordRepository(tx);
  const cveIds = [...new Set(items.map((i) => i.cveId))];
  if (stream === 'epss') {
    const stored = byCve(await repo.matchesOf(cveIds, tx));
    for (const item of items) {
      const keywords = stored.get(item.cveId);
      if (keywords)
        out.set(
          item.seq,
          [...keywords.keys()].map((k) => flag(k, true, true)),
        );
    }
    return out;
  }
  await repo.lock(tx);
  const watched = await repo.watched(tx);
  if (!watched.length) return out;
  const matcher = new KeywordMatcher(watched);
  const before = byCve(await repo.matchesOf(cveIds, tx));
  const now: KeywordMatchRow[] = [];
  for await (const texts of repo.texts(cveIds, tx))
    for (const t of texts)
      for (const [keyword, fields] of matcher.match(t)) now.push({ keyword, cveId: t.cveId, fields });
  const nowByCve = byCve(now);
  const changed = new Set<string>();
  for (const cveId of cveIds) {
    const was = before.get(cveId) ?? new Map<string, string>();
    const is = nowByCve.get(cveId) ?? new Map<string, string>();
    for (const [k, fields] of is) if (was.get(k) !== fields) changed.add(k);
    for (const k of was.keys()) if (!is.has(k)) changed.add(k);
  }
  await repo.setMatches(cveIds, now, [...changed], tx);
  for (const item of items) {
    const was = before.get(item.cveId);
    const is = nowByCve.get(item.cveId);
    if (!was && !is) continue;
    const created = item.entries.some((e) => e.type === 'created');
    const keywords = new Set([...(was?.keys() ?? []), ...(is?.keys() ?? [])]);
    out.set(
      item.seq,
      [...keywords].map((k) => flag(k, is?.has(k) ?? false, !created && (was?.has(k) ?? false))),
    );
  }
  return out;
}

const flag = (keyword: string, now: boolean, before: boolean): KeyFlag => ({
  key: keywordFlagKey(keyword),
  now,
  before,
});

/** CVE id → keyword → its fields, joined (to compare). */
function byCve(rows: readonly KeywordMatchRow[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const r of rows) {
    let m = out.get(r.cveId);
    if (!m) out.set(r.cveId, (m = new Map()));
    m.set(r.keyword, r.fields.join(','));
  }
  return out;
}
