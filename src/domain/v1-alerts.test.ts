import { describe, expect, it } from 'vitest';
import { v1AlertEvents, v1EventTypes } from './v1-alerts.ts';

const v31 = (score: number) => ({ score, vector: 'CVSS:3.1/AV:N', version: '3.1' });
const v2 = (score: number) => ({ score, vector: 'AV:N/AC:L', version: '2.0' });

describe('v1AlertEvents', () => {
  it('writes a cvss event in the seed’s shape, with OpenCVE 1.5’s {old: {v2, v3}, new: {v2, v3}} as its change', () => {
    const events = v1AlertEvents('CVE-2024-0001', [
      {
        data: [
          {
            type: 'metrics',
            details: {
              added: { cvssV2_0: v2(5) },
              removed: {},
              updated: { cvssV3_1: { old: v31(7.5), new: v31(9.8) } },
            },
          },
        ],
      },
    ]);
    expect(events).toEqual([
      {
        cve: 'CVE-2024-0001',
        type: 'cvss',
        details: { changed: [{ old: { v3: 7.5 }, new: { v2: 5, v3: 9.8 } }], added: [], removed: [] },
      },
    ]);
  });

  it('reads a v3.0 score as v3 when the change has no v3.1, and a removed score only in old', () => {
    const [event] = v1AlertEvents('CVE-2024-0001', [
      { data: [{ type: 'metrics', details: { added: {}, removed: { cvssV3_0: v31(6.1) }, updated: {} } }] },
    ]);
    expect(event?.details).toEqual({ changed: [{ old: { v3: 6.1 }, new: {} }], added: [], removed: [] });
  });

  it('has no cvss event for a metrics change without a v2 or v3 score (KEV, SSVC, v4)', () => {
    const events = v1AlertEvents('CVE-2024-0001', [
      {
        data: [
          {
            type: 'metrics',
            details: {
              added: { kev: { dateAdded: '2024-01-01' }, cvssV4_0: { score: 9 } },
              removed: {},
              updated: {},
            },
          },
        ],
      },
    ]);
    expect(events).toEqual([]);
  });

  it('makes a new CVE one new_cve event, as 1.5 recorded it, without its first_time entry', () => {
    const events = v1AlertEvents('CVE-2024-0001', [
      {
        data: [
          { type: 'created', details: { state: 'PUBLISHED' } },
          { type: 'first_time', details: ['acme'] },
        ],
      },
    ]);
    expect(events.map((e) => e.type)).toEqual(['new_cve']);
  });
});

describe('v1EventTypes', () => {
  it('gives a new CVE\'s change the filters ["new_cve"] alone, as 1.5 did', () => {
    expect(v1EventTypes([['created', 'first_time']])).toEqual(['new_cve']);
  });

  it('maps the other change types to v1 event names, once each', () => {
    expect(
      v1EventTypes([
        ['description', 'weaknesses'],
        ['metrics', 'title', 'weaknesses'],
      ]),
    ).toEqual(['summary', 'cwes', 'cvss']);
  });
});
