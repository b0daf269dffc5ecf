import { describe, expect, it } from 'vitest';
import {
  emptyDocument,
  hasRecord,
  mergeCve,
  overlayDocument,
  scoreOf,
  type Provider,
  type SourceDocument,
} from './cve.ts';

const ID = 'CVE-2024-3094';

function doc(fields: Partial<SourceDocument>): SourceDocument {
  return { ...emptyDocument(), ...fields };
}

function docs(entries: [Provider, Partial<SourceDocument>][]): Map<Provider, SourceDocument> {
  return new Map(entries.map(([p, d]) => [p, doc(d)]));
}

const V31_10 = { score: 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' };
const V31_98 = { score: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' };
const V31_75 = { score: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' };
const V2_50 = { score: 5, vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N' };

describe('mergeCve', () => {
  describe('single-valued fields', () => {
    it('takes title and description from mitre before vulnrichment, nvd and the others', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['redhat', { title: 'redhat title', description: 'redhat description' }],
          ['nvd', { description: 'nvd description' }],
          ['mitre', { title: 'mitre title', description: 'mitre description' }],
        ]),
      );
      expect(merged.title).toBe('mitre title');
      expect(merged.description).toBe('mitre description');
    });

    it('falls through to the next provider when a higher one has no value or an empty string', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', { title: '' }],
          ['vulnrichment', {}],
          ['nvd', { description: 'nvd description' }],
          ['redhat', { title: 'redhat title', description: 'redhat description' }],
          ['cisa', { title: 'kev name', description: 'kev description' }],
        ]),
      );
      expect(merged.title).toBe('redhat title');
      expect(merged.description).toBe('nvd description');
    });

    it('gives null title and description when no provider has them', () => {
      const merged = mergeCve(ID, docs([['nvd', { created: '2024-03-29T17:15:21.150Z' }]]));
      expect(merged.title).toBeNull();
      expect(merged.description).toBeNull();
    });

    it('takes each CVSS version from the first provider in mitre > vulnrichment > nvd > redhat order', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['nvd', { metrics: { cvssV3_1: V31_75, cvssV2_0: V2_50 } }],
          ['vulnrichment', { metrics: { cvssV3_1: V31_98 } }],
          [
            'redhat',
            { metrics: { cvssV3_1: V31_10, cvssV2_0: { score: 4.3, vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N' } } },
          ],
        ]),
      );
      expect(merged.metrics.cvssV3_1).toEqual({ data: V31_98, provider: 'vulnrichment' });
      expect(merged.metrics.cvssV2_0).toEqual({ data: V2_50, provider: 'nvd' });
      expect(merged.metrics.cvssV3_0).toEqual({ data: {}, provider: null });
      expect(merged.metrics.cvssV4_0).toEqual({ data: {}, provider: null });
    });

    it('prefers the CNA (mitre) CVSS over CISA-ADP and NVD', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['nvd', { metrics: { cvssV3_1: V31_75 } }],
          ['vulnrichment', { metrics: { cvssV3_1: V31_98 } }],
          ['mitre', { metrics: { cvssV3_1: V31_10 } }],
        ]),
      );
      expect(merged.metrics.cvssV3_1).toEqual({ data: V31_10, provider: 'mitre' });
      expect(scoreOf(merged.metrics.cvssV3_1)).toBe(10);
    });

    it('takes SSVC and threat_severity from the first provider that has them', () => {
      const ssvc = {
        options: { Exploitation: 'none', Automatable: 'yes', 'Technical Impact': 'total' },
        version: '2.0.3',
      };
      const merged = mergeCve(
        ID,
        docs([
          ['vulnrichment', { metrics: { ssvc } }],
          ['redhat', { metrics: { threat_severity: 'Critical' } }],
        ]),
      );
      expect(merged.metrics.ssvc).toEqual({ data: ssvc, provider: 'vulnrichment' });
      expect(merged.metrics.threat_severity).toEqual({ data: 'Critical', provider: 'redhat' });
    });

    it('gives empty metric views ({} or null for threat_severity) with provider null when nobody has them', () => {
      const merged = mergeCve(ID, docs([['mitre', {}]]));
      for (const key of ['kev', 'ssvc', 'cvssV2_0', 'cvssV3_0', 'cvssV3_1', 'cvssV4_0', 'epss'] as const) {
        expect(merged.metrics[key], key).toEqual({ data: {}, provider: null });
      }
      expect(merged.metrics.threat_severity).toEqual({ data: null, provider: null });
      expect(scoreOf(merged.metrics.cvssV3_1)).toBeNull();
    });

    it('takes EPSS from first', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', {}],
          ['first', { metrics: { epss: { score: 0.97, percentile: 0.999 } } }],
        ]),
      );
      expect(merged.metrics.epss).toEqual({ data: { score: 0.97, percentile: 0.999 }, provider: 'first' });
    });

    it('takes REJECTED state from the CNA over an NVD record that still says published', () => {
      expect(
        mergeCve(
          ID,
          docs([
            ['mitre', { state: 'REJECTED' }],
            ['nvd', {}],
          ]),
        ).state,
      ).toBe('REJECTED');
      expect(
        mergeCve(
          ID,
          docs([
            ['mitre', { state: 'PUBLISHED' }],
            ['nvd', { state: 'REJECTED' }],
          ]),
        ).state,
      ).toBe('PUBLISHED');
      expect(mergeCve(ID, docs([['nvd', {}]])).state).toBe('PUBLISHED');
    });
  });

  describe('KEV', () => {
    const cisaKev = { dateAdded: '2024-06-12T00:00:00Z', dueDate: '2024-07-03T00:00:00Z' };
    const adpKev = {
      dateAdded: '2024-06-12',
      reference: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog',
    };

    it('prefers the CISA catalog (cisa) over the CISA-ADP copy (vulnrichment), whatever the general order', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', {}],
          ['vulnrichment', { metrics: { kev: adpKev } }],
          ['cisa', { metrics: { kev: cisaKev } }],
        ]),
      );
      expect(merged.metrics.kev).toEqual({ data: cisaKev, provider: 'cisa' });
    });

    it('uses the vulnrichment KEV when the catalog has no entry', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', {}],
          ['vulnrichment', { metrics: { kev: adpKev } }],
        ]),
      );
      expect(merged.metrics.kev).toEqual({ data: adpKev, provider: 'vulnrichment' });
    });
  });

  describe('dates', () => {
    it('takes created as the earliest and updated as the latest date over providers', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', { created: '2024-03-29T16:51:12.588Z', updated: '2024-08-20T17:24:56.165Z' }],
          ['vulnrichment', { created: '2024-03-29T16:51:12.588Z', updated: '2024-04-29T18:42:23.582Z' }],
          ['nvd', { created: '2024-03-29T17:15:21.150Z', updated: '2025-02-06T09:15:10.820Z' }],
          ['redhat', { created: '2024-03-29T00:00:00.000Z', updated: '2024-03-29T00:00:00.000Z' }],
        ]),
      );
      expect(merged.created).toBe('2024-03-29T00:00:00.000Z');
      expect(merged.updated).toBe('2025-02-06T09:15:10.820Z');
    });

    it('counts a provider without an updated date at its created date', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', { created: '2020-01-01T00:00:00.000Z', updated: '2020-02-01T00:00:00.000Z' }],
          ['nvd', { created: '2021-05-05T00:00:00.000Z' }],
        ]),
      );
      expect(merged.created).toBe('2020-01-01T00:00:00.000Z');
      expect(merged.updated).toBe('2021-05-05T00:00:00.000Z');
    });

    it('ignores an EPSS statement, which has no dates', () => {
      const merged = mergeCve(
        ID,
        docs([
          ['mitre', { created: '2020-01-01T00:00:00.000Z', updated: '2020-02-01T00:00:00.000Z' }],
          ['first', { metrics: { epss: { score: 0.1 } } }],
        ]),
      );
      expect(merged.created).toBe('2020-01-01T00:00:00.000Z');
      expect(merged.updated).toBe('2020-02-01T00:00:00.000Z');
    });

    it('takes no date from a KEV statement: being listed enriches the record without modifying it', () => {
      // CVE-2024-0769: record updated 2024-08-29, listed in KEV on 2025-06-25.
      const merged = mergeCve(
        'CVE-2024-0769',
        docs([
          ['mitre', { created: '2024-01-21T08:00:05.383Z', updated: '2024-08-29T19:27:52.649Z' }],
          [
            'cisa',
            { updated: '2025-06-25T00:00:00.000Z', metrics: { kev: { dateAdded: '2025-06-25T00:00:00Z' } } },
          ],
        ]),
      );
      expect(merged.created).toBe('2024-01-21T08:00:05.383Z');
      expect(merged.updated).toBe('2024-08-29T19:27:52.649Z');
      expect(merged.metrics.kev.provider).toBe('cisa');
    });
  });

  describe('union fields', () => {
    it('unions vendors, CPEs and weaknesses over providers, sorted and without duplicates', () => {
      const merged = mergeCve(
        ID,
        docs([
          [
            'mitre',
            {
              vendors: ['redhat', 'redhat$PRODUCT$enterprise_linux'],
              cpes: ['cpe:/o:redhat:enterprise_linux:8'],
              weaknesses: ['CWE-506'],
            },
          ],
          [
            'nvd',
            {
              vendors: ['tukaani', 'tukaani$PRODUCT$xz', 'redhat'],
              cpes: ['cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*', 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*'],
              weaknesses: ['NVD-CWE-Other', 'CWE-506'],
            },
          ],
          ['cisa', { weaknesses: ['CWE-20'] }],
        ]),
      );
      expect(merged.vendors).toEqual([
        'redhat',
        'redhat$PRODUCT$enterprise_linux',
        'tukaani',
        'tukaani$PRODUCT$xz',
      ]);
      expect(merged.cpes).toEqual([
        'cpe:/o:redhat:enterprise_linux:8',
        'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
        'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*',
      ]);
      expect(merged.weaknesses).toEqual(['CWE-20', 'CWE-506', 'NVD-CWE-Other']);
    });

    it('unions references by URL, merging tags and keeping the first name and source', () => {
      const merged = mergeCve(
        ID,
        docs([
          [
            'nvd',
            {
              references: [
                {
                  url: 'https://b.example/advisory',
                  tags: ['Third Party Advisory', 'Exploit'],
                  source: 'nvd@nist.gov',
                },
                { url: 'https://a.example/', tags: [] },
              ],
            },
          ],
          [
            'mitre',
            {
              references: [
                { url: 'https://b.example/advisory', name: 'Advisory', tags: ['vendor-advisory', 'Exploit'] },
              ],
            },
          ],
        ]),
      );
      expect(merged.references).toEqual([
        { url: 'https://a.example/', tags: [] },
        {
          url: 'https://b.example/advisory',
          name: 'Advisory',
          source: 'nvd@nist.gov',
          tags: ['Exploit', 'Third Party Advisory', 'vendor-advisory'],
        },
      ]);
    });

    it('does not change the input documents', () => {
      const input = docs([
        [
          'mitre',
          { references: [{ url: 'https://x.example/', tags: ['b', 'a', 'a'] }], vendors: ['z', 'a'] },
        ],
        ['nvd', { references: [{ url: 'https://x.example/', tags: ['c'] }] }],
      ]);
      const before = structuredClone(input);
      mergeCve(ID, input);
      expect(input).toEqual(before);
    });
  });

  describe('nvdConfigurations and providers', () => {
    it('keeps the NVD configurations and lists providers in merge order', () => {
      const configurations = [
        {
          nodes: [
            {
              operator: 'OR' as const,
              negate: false,
              cpeMatch: [
                {
                  criteria: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
                  matchCriteriaId: '73F1DAD7-F362-4C5B-B980-2E5313C369DA',
                  vulnerable: true,
                },
              ],
            },
          ],
        },
      ];
      const merged = mergeCve(
        ID,
        docs([
          ['first', { metrics: { epss: { score: 0.1 } } }],
          ['nvd', { nvdConfigurations: configurations }],
          ['mitre', {}],
          ['cisa', {}],
        ]),
      );
      expect(merged.nvdConfigurations).toEqual(configurations);
      expect(merged.providers).toEqual(['mitre', 'nvd', 'cisa', 'first']);
      expect(merged.cveId).toBe(ID);
    });

    it('has null nvdConfigurations without an NVD statement', () => {
      expect(mergeCve(ID, docs([['mitre', {}]])).nvdConfigurations).toBeNull();
    });
  });
});

describe('hasRecord', () => {
  it('is true for a record provider, false for KEV and EPSS statements alone', () => {
    expect(hasRecord(['cisa', 'first'])).toBe(false);
    expect(hasRecord([])).toBe(false);
    for (const p of ['mitre', 'vulnrichment', 'nvd', 'redhat', 'enrichment'] as const)
      expect(hasRecord(['cisa', p])).toBe(true);
  });
});

describe('overlayDocument', () => {
  const kevImport = doc({
    title: 'N-able N-Central Insecure Deserialization Vulnerability',
    description: 'N-able N-Central contains an insecure deserialization vulnerability.',
    weaknesses: ['CWE-502'],
    metrics: {
      kev: { dateAdded: '2025-08-13T00:00:00Z', dueDate: '2025-08-20T00:00:00Z', requiredAction: 'Apply' },
    },
  });

  it('keeps every field the partial statement does not state (an OpenCVE KB kev section)', () => {
    const kb = doc({
      metrics: { kev: { dateAdded: '2025-08-13T00:00:00Z', dueDate: '2025-08-20T00:00:00Z' } },
    });
    expect(overlayDocument(kevImport, kb)).toEqual(kevImport);
  });

  it('takes what the partial statement states, key by key within a metric', () => {
    const kb = doc({ title: 'new', metrics: { kev: { dueDate: '2025-09-01T00:00:00Z' } } });
    const merged = overlayDocument(kevImport, kb);
    expect(merged.title).toBe('new');
    expect(merged.description).toBe(kevImport.description);
    expect(merged.weaknesses).toEqual(['CWE-502']);
    expect(merged.metrics.kev).toEqual({ ...kevImport.metrics.kev, dueDate: '2025-09-01T00:00:00Z' });
  });
});
