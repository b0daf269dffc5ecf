/**
 * API v1's alerts (OpenCVE 1.x, docs/api-v1.md): an alert is one CVE of a report; its details are the
 * report's change entries in v1's event names (`new_cve`, `first_time`, `references`, `cpes`, `cvss`,
 * `summary`, `cwes`), each as `{changed, added, removed}`. Pure.
 */
import { splitVendorKey } from './cpe.ts';
import type { ChangeEntry } from './cve-change.ts';

export type V1EventType = 'new_cve' | 'first_time' | 'references' | 'cpes' | 'cvss' | 'summary' | 'cwes';

export interface V1AlertEvent {
  cve: string;
  type: V1EventType;
  details: { changed: unknown[]; added: unknown[]; removed: unknown[] };
}

const V1_TYPE: Partial<Record<ChangeEntry['type'], V1EventType>> = {
  created: 'new_cve',
  first_time: 'first_time',
  references: 'references',
  cpes: 'cpes',
  metrics: 'cvss',
  description: 'summary',
  weaknesses: 'cwes',
};

/** The v1 event types of change types (title, state and vendor-list changes have none). */
export function v1EventTypes(types: readonly string[]): V1EventType[] {
  const out = new Set<V1EventType>();
  for (const t of types) {
    const v1 = V1_TYPE[t as ChangeEntry['type']];
    if (v1) out.add(v1);
  }
  return [...out];
}

interface Reference {
  url: string;
  name?: string;
  tags?: string[];
  source?: string;
}

const v1Reference = (r: Reference) => ({
  url: r.url,
  name: r.name ?? r.url,
  refsource: r.source ?? '',
  tags: r.tags ?? [],
});

const CVSS_VERSION: Record<string, string> = {
  cvssV2_0: 'v2',
  cvssV3_0: 'v3',
  cvssV3_1: 'v3',
  cvssV4_0: 'v4',
};

function cvssDetails(d: {
  added?: Record<string, unknown>;
  removed?: Record<string, unknown>;
  updated?: Record<string, { old: unknown; new: unknown }>;
}): V1AlertEvent['details'] | undefined {
  const score = (v: unknown) =>
    v && typeof v === 'object' ? ((v as { score?: number }).score ?? null) : null;
  const pick = (record: Record<string, unknown> | undefined) =>
    Object.entries(record ?? {})
      .filter(([k]) => k in CVSS_VERSION)
      .map(([k, v]) => ({ version: CVSS_VERSION[k], score: score(v) }));
  const changed = Object.entries(d.updated ?? {})
    .filter(([k]) => k in CVSS_VERSION)
    .map(([k, v]) => ({ version: CVSS_VERSION[k], old: score(v.old), new: score(v.new) }));
  const added = pick(d.added);
  const removed = pick(d.removed);
  return changed.length + added.length + removed.length ? { changed, added, removed } : undefined;
}

/** One CVE's changes (oldest first) as v1 alert events. */
export function v1AlertEvents(cveId: string, changes: readonly { data: unknown[] }[]): V1AlertEvent[] {
  const events: V1AlertEvent[] = [];
  const push = (type: V1EventType, details: V1AlertEvent['details']) =>
    events.push({ cve: cveId, type, details });
  for (const change of changes) {
    for (const entry of change.data as ChangeEntry[]) {
      const d = entry.details as Record<string, unknown>;
      switch (entry.type) {
        case 'created':
          push('new_cve', { changed: [], added: [cveId], removed: [] });
          break;
        case 'first_time':
          push('first_time', {
            changed: [],
            added: (entry.details as string[]).map((k) => {
              const { vendor, product } = splitVendorKey(k);
              return product ?? vendor;
            }),
            removed: [],
          });
          break;
        case 'references':
          push('references', {
            changed: ((d.changed as Reference[] | undefined) ?? []).map(v1Reference),
            added: ((d.added as Reference[] | undefined) ?? []).map(v1Reference),
            removed: ((d.removed as Reference[] | undefined) ?? []).map(v1Reference),
          });
          break;
        case 'cpes':
        case 'weaknesses':
          push(entry.type === 'cpes' ? 'cpes' : 'cwes', {
            changed: [],
            added: (d.added as string[] | undefined) ?? [],
            removed: (d.removed as string[] | undefined) ?? [],
          });
          break;
        case 'description':
          push('summary', { changed: [{ old: d.old ?? null, new: d.new ?? null }], added: [], removed: [] });
          break;
        case 'metrics': {
          const details = cvssDetails(d);
          if (details) push('cvss', details);
          break;
        }
        case 'title':
        case 'state':
        case 'vendors':
          break;
      }
    }
  }
  return events;
}
