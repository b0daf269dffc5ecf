import { describe, expect, it } from 'vitest';
import {
  AliasLearner,
  mapCnaKeys,
  productTextKey,
  vendorTextKey,
  type AliasTable,
  type Cve5Containers,
} from './vendor-aliases.ts';

/** A CVE 5 record's containers: the CNA's affected entries and, optionally, CISA-ADP's CPEs. */
function record(
  affected: { vendor: string; product: string; cpes?: string[] }[],
  adp: string[] = [],
): Cve5Containers {
  return {
    cna: { affected },
    adp: adp.length ? [{ providerMetadata: { shortName: 'CISA-ADP' }, affected: [{ cpes: adp }] }] : [],
  };
}

function learn(records: Cve5Containers[]): AliasTable {
  const learner = new AliasLearner();
  for (const r of records) learner.learn(r);
  return JSON.parse(JSON.stringify(learner.toJSON())) as AliasTable;
}

const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

describe('vendor-aliases', () => {
  it('normalizes CNA vendor text: case, punctuation, legal suffixes and placeholders', () => {
    expect(vendorTextKey('D-Link')).toBe('dlink');
    expect(vendorTextKey('Palo Alto Networks')).toBe('paloaltonetworks');
    expect(vendorTextKey('QNAP Systems Inc.')).toBe('qnap');
    expect(vendorTextKey('Zyxel Co., Ltd')).toBe('zyxel');
    expect(vendorTextKey('Oracle Corporation')).toBe('oracle');
    expect(vendorTextKey('n/a')).toBeUndefined();
    expect(vendorTextKey('unspecified')).toBeUndefined();
    expect(productTextKey('Apple macOS', 'Apple')).toBe('macos');
  });

  it('maps the issue’s examples once the records taught them, citing the evidence', () => {
    const table = learn([
      ...times(
        3,
        record([{ vendor: 'D-Link', product: 'DIR-605L' }], ['cpe:2.3:h:dlink:dir-605l:-:*:*:*:*:*:*:*']),
      ),
      ...times(
        2,
        record(
          [{ vendor: 'Palo Alto Networks', product: 'PAN-OS' }],
          ['cpe:2.3:o:paloaltonetworks:pan-os:*:*:*:*:*:*:*:*'],
        ),
      ),
      ...times(
        2,
        record([{ vendor: 'QNAP Systems Inc.', product: 'QTS' }], ['cpe:2.3:o:qnap:qts:*:*:*:*:*:*:*:*']),
      ),
      ...times(
        4,
        record([{ vendor: 'Linux', product: 'Linux' }], ['cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*']),
      ),
    ]);
    expect(mapCnaKeys(table, record([{ vendor: 'D-Link', product: 'DIR-605L' }])).vendors).toEqual(['dlink']);
    expect(
      mapCnaKeys(table, record([{ vendor: 'Palo Alto Networks', product: 'Cortex XDR' }])).vendors,
    ).toEqual(['paloaltonetworks']);
    // Another spelling of the same company normalizes to the learned text.
    expect(
      mapCnaKeys(table, record([{ vendor: 'QNAP Systems, Inc.', product: 'QuTS hero' }])).vendors,
    ).toEqual(['qnap']);
    const linux = mapCnaKeys(table, record([{ vendor: 'Linux', product: 'Linux' }]));
    expect(linux.vendors).toEqual(['linux']);
    expect(linux.products).toEqual(['linux$PRODUCT$linux_kernel']);
    expect(linux.evidence['linux$PRODUCT$linux_kernel']).toEqual({
      source: 'cna-text',
      rule: 'alias',
      text: 'Linux / Linux',
      support: 4,
      records: 4,
    });
  });

  it('gives no key for a vendor no CPE has named, nor for a text below the threshold', () => {
    const table = learn([
      record([{ vendor: 'Acme', product: 'Widget' }], ['cpe:2.3:a:acme_corp:widget:*:*:*:*:*:*:*:*']),
      // "Tenda" seen twice with two different keys: 50 % each, under the 70 % share.
      record([{ vendor: 'Tenda', product: 'AC6' }], ['cpe:2.3:o:tenda:ac6_firmware:*:*:*:*:*:*:*:*']),
      record([{ vendor: 'Tenda', product: 'AC6' }], ['cpe:2.3:o:tendacn:ac6_firmware:*:*:*:*:*:*:*:*']),
    ]);
    expect(mapCnaKeys(table, record([{ vendor: 'Never Seen Ltd', product: 'Thing' }]))).toEqual({
      vendors: [],
      products: [],
      evidence: {},
    });
    // One record is below the two-record support; the text is not a CPE vendor's spelling either.
    expect(mapCnaKeys(table, record([{ vendor: 'Acme', product: 'Widget' }])).vendors).toEqual([]);
    expect(mapCnaKeys(table, record([{ vendor: 'Tenda', product: 'AC6' }])).vendors).toEqual([]);
  });

  it('uses a CPE vendor of the same spelling for a text never learned, and a product key seen within it', () => {
    const table = learn([
      record(
        [{ vendor: 'Other', product: 'x' }],
        ['cpe:2.3:a:gitlab:gitlab:*:*:*:*:*:*:*:*', 'cpe:2.3:a:gitlab:gitlab_runner:*:*:*:*:*:*:*:*'],
      ),
    ]);
    const mapped = mapCnaKeys(table, record([{ vendor: 'GitLab Inc.', product: 'GitLab Runner' }]));
    expect(mapped.vendors).toEqual(['gitlab']);
    expect(mapped.products).toEqual(['gitlab$PRODUCT$gitlab_runner']);
    expect(mapped.evidence.gitlab).toEqual({ source: 'cna-text', rule: 'name', text: 'GitLab Inc.' });
  });

  it('prefers the CNA’s own CPEs over its text', () => {
    const table = learn([]);
    const mapped = mapCnaKeys(
      table,
      record([{ vendor: 'Apple', product: 'macOS', cpes: ['cpe:2.3:o:apple:mac_os:*:*:*:*:*:*:*:*'] }]),
    );
    expect(mapped.vendors).toEqual(['apple']);
    expect(mapped.products).toEqual(['apple$PRODUCT$mac_os']);
    expect(mapped.evidence.apple).toEqual({
      source: 'cpe:cna',
      cpe: 'cpe:2.3:o:apple:mac_os:*:*:*:*:*:*:*:*',
    });
  });
});

describe('vendor-aliases: records whose CNA names no vendor', () => {
  const table = learn([
    ...times(
      2,
      record([{ vendor: 'Tenda', product: 'AC6' }], ['cpe:2.3:o:tenda:ac6_firmware:*:*:*:*:*:*:*:*']),
    ),
    ...times(
      2,
      record(
        [{ vendor: 'WordPress', product: 'WordPress' }],
        ['cpe:2.3:a:wordpress:wordpress:*:*:*:*:*:*:*:*'],
      ),
    ),
  ]);
  const described = (title: string, description: string): Cve5Containers => ({
    cna: {
      affected: [{ vendor: 'n/a', product: 'n/a' }],
      title,
      descriptions: [{ lang: 'en', value: description }],
    },
  });

  it('finds the vendor and product at the start of the description (VulDB/MITRE style)', () => {
    // CVE-2024-7151-like wording.
    const mapped = mapCnaKeys(
      table,
      described('', 'A vulnerability was found in Tenda AC6 15.03.05.19 and classified as critical.'),
    );
    expect(mapped.vendors).toEqual(['tenda']);
    expect(mapped.products).toEqual(['tenda$PRODUCT$ac6_firmware']);
    expect(mapped.evidence.tenda).toEqual({ source: 'cna-text', rule: 'description', text: 'tenda' });
  });

  it('does not take the platform for the vendor', () => {
    expect(
      mapCnaKeys(
        table,
        described('', 'The Kento Post View Counter plugin for WordPress is vulnerable to SQL Injection'),
      ).vendors,
    ).toEqual([]);
    expect(
      mapCnaKeys(table, described('', 'The Foo WordPress plugin before 1.2 does not sanitise input')).vendors,
    ).toEqual([]);
  });

  it('reads the description only when no affected entry names a vendor', () => {
    const containers = described('', 'A flaw in Tenda AC6');
    (containers.cna as { affected: unknown }).affected = [{ vendor: 'Never Seen', product: 'x' }];
    expect(mapCnaKeys(table, containers).vendors).toEqual([]);
  });
});
