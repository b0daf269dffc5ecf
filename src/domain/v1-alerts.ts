/**
 * API v1's alerts (OpenCVE 1.x, docs/api-v1.md): an alert is one CVE of a report; its details are the
 * report's change entries in v1's event names (`new_cve`, `first_time`, `references`, `cpes`, `cvss`,
 * `summary`, `cwes`), each as `{changed, added, removed}` (the seed's shape, binding); a `cvss` event
 * carries what OpenCVE 1.5 wrote, `{old: {v2, v3}, new: {v2, v3}}`, as its one `changed` item, as a
 * `summary` event carries `{old, new}`. A new CVE is one `new_cve` event, as 1.5 recorded it. Pure.
 */
import { splitVendorKey } from './cpe.ts';
import type { ChangeEntry } from './cve-change.ts';

export type V1EventType = 'new_cve' | 'first_time' | 'references' | 'cpes' | 'cvss' | 'summary' | 'cwes';

type ListDetails = { changed: unknown[]; added: unknown[]; removed: unknown[] };
/** OpenCVE 1.5's `cvss` event: the v2 and v3 base scores before and after (a version without a score is absent). */
export type CvssScores = { v2?: number; v3?: number };
export type CvssDetails = { old: CvssScores; new: CvssScores };

export interface V1AlertEvent {
  cve: string;
  type: V1EventType;
  details: ListDetails;
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

/**
 * The v1 event types of changes, each given by its change types (title, state and vendor-list changes
 * have none). A change that created the CVE is `new_cve` alone: OpenCVE 1.5 recorded a new CVE as that
 * one event, so its alert's filters were `["new_cve"]`.
 */
export function v1EventTypes(changes: readonly (readonly string[])[]): V1EventType[] {
  const out = new Set<V1EventType>();
  for (const types of changes) {
    if (types.includes('created')) {
      out.add('new_cve');
      continue;
    }
    for (const t of types) {
      const v1 = V1_TYPE[t as ChangeEntry['type']];
      if (v1) out.add(v1);
    }
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

/** OpenCVE 1.5 knew CVSS v2 and v3 (v3.1, else v3.0: one `v3` score). */
const score = (v: unknown): number | undefined => {
  const n = v && typeof v === 'object' ? (v as { score?: unknown }).score : undefined;
  return typeof n === 'number' ? n : undefined;
};

function scores(metrics: Record<string, unknown>): CvssScores {
  const out: CvssScores = {};
  const v2 = score(metrics.cvssV2_0);
  const v3 = score(metrics.cvssV3_1) ?? score(metrics.cvssV3_0);
  if (v2 !== undefined) out.v2 = v2;
  if (v3 !== undefined) out.v3 = v3;
  return out;
}

/**
 * A metrics change as OpenCVE 1.5's `cvss` event, `{old, new}`: the v2 and v3 scores the change states
 * before and after. A version the change does not touch is absent from both (the change does not
 * record it); none touched: no event.
 */
function cvssDetails(d: {
  added?: Record<string, unknown>;
  removed?: Record<string, unknown>;
  updated?: Record<string, { old: unknown; new: unknown }>;
}): CvssDetails | undefined {
  const before: Record<string, unknown> = { ...d.removed };
  const after: Record<string, unknown> = { ...d.added };
  for (const [k, v] of Object.entries(d.updated ?? {})) {
    before[k] = v.old;
    after[k] = v.new;
  }
  const old = scores(before);
  const now = scores(after);
  return Object.keys(old).length + Object.keys(now).length ? { old, new: now } : undefined;
}

/** One CVE's changes (oldest first) as v1 alert events. */
export function v1AlertEvents(cveId: string, changes: readonly { data: unknown[] }[]): V1AlertEvent[] {
  const events: V1AlertEvent[] = [];
  const push = (type: V1EventType, details: V1AlertEvent['details']) =>
    events.push({ cve: cveId, type, details });
  for (const change of changes) {
    const entries = change.data as ChangeEntry[];
    if (entries.some((e) => e.type === 'created')) {
      // OpenCVE 1.5 recorded a new CVE as one `new_cve` event, whatever it came with.
      push('new_cve', { changed: [], added: [cveId], removed: [] });
      continue;
    }
    for (const entry of entries) {
      const d = entry.details as Record<string, unknown>;
      switch (entry.type) {
        case 'created':
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
          if (details) push('cvss', { changed: [details], added: [], removed: [] });
          break;
        }
        case 'title':
        case 'state':
        case 'vendors':
        case 'affected': // API v1 has no event for it
          break;
      }
    }
  }
  return events;
}
