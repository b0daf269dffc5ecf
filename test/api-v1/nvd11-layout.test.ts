import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNvd11, parseNvd20 } from '../../src/sources/nvd/nvd.parse.ts';
import {
  configurations11,
  nvd11FromCatalog,
  nvd20To11,
  rawNvdData,
  toMinuteZ,
} from '../../src/domain/nvd11.ts';

type Json = Record<string, unknown>;
const record = (id: string) => JSON.parse(fs.readFileSync(`test/fixtures/nvd/${id}.json`, 'utf8')) as Json;

describe('nvd20To11', () => {
  it('lays out an NVD API 2.0 record as a 1.1 feed item (CVE-2024-3094)', () => {
    const item = nvd20To11(record('CVE-2024-3094'));
    const cve = item.cve as Json;
    expect(cve).toMatchObject({
      data_type: 'CVE',
      data_format: 'MITRE',
      data_version: '4.0',
      CVE_data_meta: { ID: 'CVE-2024-3094', ASSIGNER: 'secalert@redhat.com' },
      problemtype: { problemtype_data: [{ description: [{ lang: 'en', value: 'CWE-506' }] }] },
    });
    expect((cve.description as Json).description_data).toEqual([
      {
        lang: 'en',
        value: expect.stringMatching(/^Malicious code was discovered in the upstream tarballs of xz/),
      },
    ]);
    const refs = (cve.references as { reference_data: Json[] }).reference_data;
    expect(refs[0]).toEqual({
      url: 'https://access.redhat.com/security/cve/CVE-2024-3094',
      name: 'https://access.redhat.com/security/cve/CVE-2024-3094',
      refsource: '',
      tags: ['Vendor Advisory'],
    });
    expect(refs).toHaveLength((record('CVE-2024-3094').references as unknown[]).length);
    expect(item.impact).toEqual({
      baseMetricV3: {
        cvssV3: {
          version: '3.1',
          vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
          attackVector: 'NETWORK',
          attackComplexity: 'LOW',
          privilegesRequired: 'NONE',
          userInteraction: 'NONE',
          scope: 'CHANGED',
          confidentialityImpact: 'HIGH',
          integrityImpact: 'HIGH',
          availabilityImpact: 'HIGH',
          baseScore: 10,
          baseSeverity: 'CRITICAL',
        },
        exploitabilityScore: 3.9,
        impactScore: 6,
      },
    });
    expect(item.configurations).toEqual({
      CVE_data_version: '4.0',
      nodes: [
        {
          operator: 'OR',
          children: [],
          cpe_match: [
            { vulnerable: true, cpe23Uri: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*', cpe_name: [] },
            { vulnerable: true, cpe23Uri: 'cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*', cpe_name: [] },
          ],
        },
      ],
    });
    expect(item.publishedDate).toBe('2024-03-29T17:15Z');
    expect(item.lastModifiedDate).toBe('2025-02-06T09:15Z');
  });

  it('keeps the CVSS v2 assessment with its flags and the CWE ids of every source (CVE-2022-20698)', () => {
    const item = nvd20To11(record('CVE-2022-20698'));
    expect((item.impact as Json).baseMetricV2).toEqual({
      cvssV2: {
        version: '2.0',
        vectorString: 'AV:N/AC:L/Au:N/C:N/I:N/A:P',
        accessVector: 'NETWORK',
        accessComplexity: 'LOW',
        authentication: 'NONE',
        confidentialityImpact: 'NONE',
        integrityImpact: 'NONE',
        availabilityImpact: 'PARTIAL',
        baseScore: 5,
      },
      severity: 'MEDIUM',
      exploitabilityScore: 10,
      impactScore: 2.9,
      acInsufInfo: false,
      obtainAllPrivilege: false,
      obtainUserPrivilege: false,
      obtainOtherPrivilege: false,
      userInteractionRequired: false,
    });
    const problems = ((item.cve as Json).problemtype as { problemtype_data: { description: Json[] }[] })
      .problemtype_data[0]!.description;
    expect(problems.map((d) => d.value)).toEqual(['CWE-20', 'CWE-125']);
  });

  it.each([
    'CVE-2019-25161',
    'CVE-2021-36593',
    'CVE-2022-20698',
    'CVE-2023-4863',
    'CVE-2024-3094',
    'CVE-2024-31331',
  ])('reads back as the same statement as the 2.0 record (%s)', (id) => {
    const from20 = parseNvd20(record(id)).doc;
    const from11 = parseNvd11(nvd20To11(record(id))).doc;
    // 1.1 has no match criteria ids; dates have minute precision; rejection is a description prefix.
    const strip = (doc: typeof from20) => ({
      ...doc,
      description: doc.description?.replace(/^\*\* REJECT \*\* /, ''),
      created: doc.created?.slice(0, 16),
      updated: doc.updated?.slice(0, 16),
      references: doc.references.map((r) => ({ url: r.url, tags: r.tags })),
      nvdConfigurations: doc.nvdConfigurations?.map((c) => ({
        ...c,
        nodes: c.nodes.map((n) => ({
          ...n,
          cpeMatch: n.cpeMatch.map((m) => ({ ...m, matchCriteriaId: '' })),
        })),
      })),
      metrics: { ...doc.metrics, kev: undefined },
    });
    expect(strip(from11)).toEqual(strip(from20));
  });
});

describe('configurations11', () => {
  it('turns a configuration of several nodes into a parent node with children', () => {
    const nodes = configurations11([
      {
        operator: 'AND',
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [{ criteria: 'cpe:2.3:o:a:b:1:*:*:*:*:*:*:*', matchCriteriaId: 'X', vulnerable: true }],
          },
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              { criteria: 'cpe:2.3:h:a:c:-:*:*:*:*:*:*:*', matchCriteriaId: 'Y', vulnerable: false },
            ],
          },
        ],
      },
    ]);
    expect(nodes).toEqual({
      CVE_data_version: '4.0',
      nodes: [
        {
          operator: 'AND',
          children: [
            {
              operator: 'OR',
              children: [],
              cpe_match: [{ vulnerable: true, cpe23Uri: 'cpe:2.3:o:a:b:1:*:*:*:*:*:*:*', cpe_name: [] }],
            },
            {
              operator: 'OR',
              children: [],
              cpe_match: [{ vulnerable: false, cpe23Uri: 'cpe:2.3:h:a:c:-:*:*:*:*:*:*:*', cpe_name: [] }],
            },
          ],
          cpe_match: [],
        },
      ],
    });
  });
});

describe('nvd11FromCatalog', () => {
  const cve = {
    cve_id: 'CVE-2021-44228',
    description: 'Apache Log4j2 JNDI features do not protect against attacker controlled LDAP.',
    created_at: new Date('2021-12-10T00:00:00.000Z'),
    updated_at: new Date('2025-02-04T14:25:37.215Z'),
    metrics: {
      cvssV3_1: { data: { score: 10, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' } },
      cvssV2_0: { data: { score: 9.3, vector: 'AV:N/AC:M/Au:N/C:C/I:C/A:C' } },
      kev: { data: {} },
    },
    weaknesses: ['CWE-502', 'CWE-917'],
    references: [{ url: 'https://logging.apache.org/log4j/2.x/security.html', tags: ['x_refsource_MISC'] }],
    nvd_configurations: null,
  };

  it('builds an item from the catalog, naming CVSS metrics from their vectors', () => {
    const item = nvd11FromCatalog(cve);
    expect(item).toEqual({
      cve: {
        data_type: 'CVE',
        data_format: 'MITRE',
        data_version: '4.0',
        CVE_data_meta: { ID: 'CVE-2021-44228', ASSIGNER: '' },
        problemtype: {
          problemtype_data: [
            {
              description: [
                { lang: 'en', value: 'CWE-502' },
                { lang: 'en', value: 'CWE-917' },
              ],
            },
          ],
        },
        references: {
          reference_data: [
            {
              url: 'https://logging.apache.org/log4j/2.x/security.html',
              name: 'https://logging.apache.org/log4j/2.x/security.html',
              refsource: '',
              tags: ['x_refsource_MISC'],
            },
          ],
        },
        description: { description_data: [{ lang: 'en', value: cve.description }] },
      },
      configurations: { CVE_data_version: '4.0', nodes: [] },
      impact: {
        baseMetricV3: {
          cvssV3: {
            version: '3.1',
            vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
            attackVector: 'NETWORK',
            attackComplexity: 'LOW',
            privilegesRequired: 'NONE',
            userInteraction: 'NONE',
            scope: 'CHANGED',
            confidentialityImpact: 'HIGH',
            integrityImpact: 'HIGH',
            availabilityImpact: 'HIGH',
            baseScore: 10,
            baseSeverity: 'CRITICAL',
          },
        },
        baseMetricV2: {
          cvssV2: {
            version: '2.0',
            vectorString: 'AV:N/AC:M/Au:N/C:C/I:C/A:C',
            accessVector: 'NETWORK',
            accessComplexity: 'MEDIUM',
            authentication: 'NONE',
            confidentialityImpact: 'COMPLETE',
            integrityImpact: 'COMPLETE',
            availabilityImpact: 'COMPLETE',
            baseScore: 9.3,
          },
          severity: 'HIGH',
        },
      },
      publishedDate: '2021-12-10T00:00Z',
      lastModifiedDate: '2025-02-04T14:25Z',
    });
  });

  it('rawNvdData serves a 1.1 item as stored, converts 2.0, and builds when NVD has no record', () => {
    const item = { cve: { CVE_data_meta: { ID: 'CVE-2021-44228' } }, publishedDate: '2021-12-10T04:15Z' };
    expect(rawNvdData({ format: '1.1', record: item }, cve)).toBe(item);
    expect(rawNvdData({ format: '2.0', record: record('CVE-2024-3094') }, cve)).toEqual(
      nvd20To11(record('CVE-2024-3094')),
    );
    expect(rawNvdData(undefined, cve)).toEqual(nvd11FromCatalog(cve));
  });
});

describe('toMinuteZ', () => {
  it.each([
    ['2024-03-29T17:15:21.150', '2024-03-29T17:15Z'],
    ['2014-04-07T22:55Z', '2014-04-07T22:55Z'],
    [new Date('2021-12-10T04:15:09.123Z'), '2021-12-10T04:15Z'],
    ['garbage', undefined],
  ])('%s → %s', (input, expected) => expect(toMinuteZ(input)).toBe(expected));
});
