import { describe, expect, it } from 'vitest';
import {
  alphanumericRuns,
  AliasLearner,
  mintedName,
  mintedProductName,
  compactTable,
  DEFAULT_THRESHOLD,
  mapCnaKeys,
  PAIR,
  phraseTextKey,
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

function learn(records: Cve5Containers[], vocabulary: string[][] = []): AliasTable {
  const learner = new AliasLearner();
  for (const r of records) learner.learn(r);
  for (const cpes of vocabulary) learner.learnCpes(cpes);
  return JSON.parse(JSON.stringify(learner.toJSON())) as AliasTable;
}

const cpe = (vendor: string, product: string, part = 'a') =>
  `cpe:2.3:${part}:${vendor}:${product}:*:*:*:*:*:*:*:*`;

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

  it('keys a description phrase from its words as vendorTextKey keys the whole phrase', () => {
    const phrases = [
      'Y Soft',
      'D-Link',
      'Zyxel Co. Ltd',
      'Apache Software Foundation',
      'Palo Alto Networks',
      'node.js',
      'A.B.-C_',
      '..x--y__z..',
      'none',
      'Not Applicable',
      'TBD',
      'Foo Inc',
      'Inc',
      'Systems',
      '_',
      'GE Vernova',
    ];
    for (const phrase of phrases) {
      const runs = phrase.split(' ').map((w) => alphanumericRuns(w.toLowerCase()));
      expect(phraseTextKey(runs), phrase).toBe(vendorTextKey(phrase.toLowerCase()));
    }
    // The one difference: a hyphenated placeholder is one here too (vendorTextKey keeps "notapplicable").
    expect(phraseTextKey(['not', 'applicable'])).toBeUndefined();
    expect(vendorTextKey('not-applicable')).toBe('notapplicable');
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

  it('mints a key for a vendor no CPE has named, and none for an ambiguous text', () => {
    const table = learn([
      record([{ vendor: 'Acme', product: 'Widget' }], ['cpe:2.3:a:acme_corp:widget:*:*:*:*:*:*:*:*']),
      // "Tenda" seen twice with two different keys: 50 % each, under the 70 % share.
      record([{ vendor: 'Tenda', product: 'AC6' }], ['cpe:2.3:o:tenda:ac6_firmware:*:*:*:*:*:*:*:*']),
      record([{ vendor: 'Tenda', product: 'AC6' }], ['cpe:2.3:o:tendacn:ac6_firmware:*:*:*:*:*:*:*:*']),
    ]);
    expect(mapCnaKeys(table, record([{ vendor: 'Never Seen Ltd', product: 'Thing 2' }]))).toEqual({
      vendors: ['never_seen'],
      products: ['never_seen$PRODUCT$thing'],
      evidence: {
        never_seen: { source: 'cna-text', rule: 'cna-name', text: 'Never Seen Ltd' },
        never_seen$PRODUCT$thing: { source: 'cna-text', rule: 'cna-name', text: 'Never Seen Ltd / Thing 2' },
      },
    });
    // One record is below the two-record support, and not a CPE vendor's spelling: minted.
    expect(mapCnaKeys(table, record([{ vendor: 'Acme', product: 'Widget' }])).vendors).toEqual(['acme']);
    // Two records, two keys: ambiguous, so neither a learned key nor a minted one.
    expect(mapCnaKeys(table, record([{ vendor: 'Tenda', product: 'AC6' }])).vendors).toEqual([]);
    // A placeholder mints nothing.
    expect(mapCnaKeys(table, record([{ vendor: 'n/a', product: 'n/a' }]))).toEqual({
      vendors: [],
      products: [],
      evidence: {},
    });
    // Without minting (the bench's comparison), the unseen name gives nothing.
    expect(
      mapCnaKeys(table, record([{ vendor: 'Never Seen Ltd', product: 'Thing' }]), { mint: false }),
    ).toEqual({
      vendors: [],
      products: [],
      evidence: {},
    });
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
    expect(mapCnaKeys(table, containers).vendors).toEqual(['never_seen']);
  });
});

describe('vendor-aliases: rules measured on the vulnrichment corpus (issue 20)', () => {
  it('follows the evidence for the issue’s examples, whichever spelling it favours', () => {
    // Counts shaped like the corpus before 2024-08-01: "D-Link" gave `dlink` 151 times and `d-link`
    // 60 (72 %), "ManageEngine" `manageengine` 16 and `zohocorp` 4, "Apple / macOS" `macos`.
    const table = learn([
      ...times(7, record([{ vendor: 'D-Link', product: 'DIR-605L' }], [cpe('dlink', 'dir-605l', 'h')])),
      ...times(3, record([{ vendor: 'D-Link', product: 'DIR-605L' }], [cpe('d-link', 'dir-605l', 'h')])),
      ...times(
        4,
        record(
          [{ vendor: 'ManageEngine', product: 'ADManager Plus' }],
          [cpe('manageengine', 'admanager_plus')],
        ),
      ),
      record(
        [{ vendor: 'ManageEngine', product: 'ADManager Plus' }],
        [cpe('zohocorp', 'manageengine_admanager_plus')],
      ),
      ...times(
        2,
        record(
          [{ vendor: 'Rockwell Automation', product: 'FactoryTalk View' }],
          [cpe('rockwellautomation', 'factorytalk_view')],
        ),
      ),
      ...times(2, record([{ vendor: 'Apple', product: 'macOS' }], [cpe('apple', 'macos', 'o')])),
    ]);
    expect(mapCnaKeys(table, record([{ vendor: 'D-Link', product: 'DIR-619L' }])).vendors).toEqual(['dlink']);
    expect(
      mapCnaKeys(table, record([{ vendor: 'ManageEngine', product: 'Endpoint Central' }])).vendors,
    ).toEqual(['manageengine']);
    expect(
      mapCnaKeys(table, record([{ vendor: 'Rockwell Automation', product: 'FactoryTalk View' }])),
    ).toMatchObject({
      vendors: ['rockwellautomation'],
      products: ['rockwellautomation$PRODUCT$factorytalk_view'],
    });
    expect(mapCnaKeys(table, record([{ vendor: 'Apple', product: 'macOS' }])).products).toEqual([
      'apple$PRODUCT$macos',
    ]);

    // Where the evidence favours NVD's `zohocorp` (NVD's CPEs teaching), the text follows it.
    const learner = new AliasLearner();
    for (let i = 0; i < 3; i++) {
      learner.learn(record([{ vendor: 'ManageEngine', product: 'ADManager Plus' }]), [
        cpe('zohocorp', 'manageengine_admanager_plus'),
      ]);
    }
    expect(
      mapCnaKeys(learner.toJSON(), record([{ vendor: 'ManageEngine', product: 'OpManager' }])).vendors,
    ).toEqual(['zohocorp']);
  });

  it('gives the vendor of a confident (vendor, product) pair when the vendor text alone is ambiguous', () => {
    // "Hewlett Packard Enterprise (HPE)" gave `arubanetworks` 56 times of 82, `hpe` 20: ambiguous;
    // with "ArubaOS" it always gave `arubanetworks$PRODUCT$arubaos`.
    const hpe = (product: string, keys: string[] = []) =>
      record([{ vendor: 'Hewlett Packard Enterprise (HPE)', product }], keys);
    const table = learn([
      ...times(3, hpe('ArubaOS', [cpe('arubanetworks', 'arubaos', 'o')])),
      ...times(3, hpe('HPE OneView', [cpe('hpe', 'oneview')])),
    ]);
    const mapped = mapCnaKeys(table, hpe('ArubaOS'));
    expect(mapped.vendors).toEqual(['arubanetworks']);
    expect(mapped.products).toEqual(['arubanetworks$PRODUCT$arubaos']);
    expect(mapped.evidence.arubanetworks).toMatchObject({ rule: 'alias', support: 3, records: 3 });
    expect(mapCnaKeys(table, hpe('Aruba CX Switches')).vendors).toEqual([]);
  });

  it('spells an unseen vendor text without its parenthesized abbreviation, and with its hyphens', () => {
    const table = learn(
      [],
      [
        [cpe('open_networking_foundation', 'libfluid')],
        [cpe('cs-cart', 'multi-vendor')],
        [cpe('palo_alto', 'x')],
      ],
    );
    expect(
      mapCnaKeys(table, record([{ vendor: 'Open Networking Foundation (ONF)', product: 'libfluid' }])),
    ).toMatchObject({
      vendors: ['open_networking_foundation'],
      products: ['open_networking_foundation$PRODUCT$libfluid'],
    });
    expect(mapCnaKeys(table, record([{ vendor: 'CS-Cart', product: 'Multi-Vendor' }])).vendors).toEqual([
      'cs-cart',
    ]);
  });

  it('spells a product no CPE named under a vendor whose products are always its text', () => {
    // code-projects: CISA-ADP's product keys are the CNA's product text (32 of them before the cut).
    const cp = (product: string, key?: string) =>
      record([{ vendor: 'code-projects', product }], key ? [cpe('code-projects', key)] : []);
    const table = learn([
      ...times(2, cp('Blood Bank System', 'blood_bank_system')),
      ...times(2, cp('Library System', 'library_system')),
      ...times(2, cp('Online Book Store', 'online_book_store')),
    ]);
    const mapped = mapCnaKeys(table, cp('Pharmacy Management System'));
    expect(mapped.vendors).toEqual(['code-projects']);
    expect(mapped.products).toEqual(['code-projects$PRODUCT$pharmacy_management_system']);
    expect(mapped.evidence['code-projects$PRODUCT$pharmacy_management_system']).toEqual({
      source: 'cna-text',
      rule: 'spelling',
      text: 'code-projects / Pharmacy Management System',
    });
    // Apple's keys are not its product texts ("iOS and iPadOS" → `iphone_os`): nothing is spelled
    // by the learned rule; the product is minted from its name.
    const apple = learn([
      ...times(2, record([{ vendor: 'Apple', product: 'iOS and iPadOS' }], [cpe('apple', 'iphone_os', 'o')])),
      ...times(2, record([{ vendor: 'Apple', product: 'macOS' }], [cpe('apple', 'macos', 'o')])),
      ...times(2, record([{ vendor: 'Apple', product: 'Safari' }], [cpe('apple', 'safari')])),
    ]);
    const vision = mapCnaKeys(apple, record([{ vendor: 'Apple', product: 'visionOS' }]));
    expect(vision.products).toEqual(['apple$PRODUCT$visionos']);
    expect(vision.evidence['apple$PRODUCT$visionos']).toMatchObject({ rule: 'cna-name' });
  });

  it('needs 80 % of a pair’s records for a product key (70 % for a vendor)', () => {
    expect(DEFAULT_THRESHOLD).toMatchObject({ minSupport: 2, minShare: 0.7, productMinShare: 0.8 });
    // "Mozilla / Firefox" records also named Thunderbird 3 times of 4: the vendor, not Thunderbird.
    const firefox = (keys: string[]) => record([{ vendor: 'Mozilla', product: 'Firefox' }], keys);
    const table = learn([
      ...times(3, firefox([cpe('mozilla', 'firefox'), cpe('mozilla', 'thunderbird')])),
      firefox([cpe('mozilla', 'firefox')]),
    ]);
    expect(mapCnaKeys(table, firefox([]))).toMatchObject({
      vendors: ['mozilla'],
      products: ['mozilla$PRODUCT$firefox'],
    });
  });

  it('finds the vendor after "of" in a description, and a product of several words', () => {
    const table = learn(
      [
        ...times(2, record([{ vendor: 'Tenda', product: 'AC15' }], [cpe('tenda', 'ac15_firmware', 'o')])),
        ...times(2, record([{ vendor: 'Netgear', product: 'x' }], [cpe('netgear', 'x')])),
      ],
      [[cpe('netgear', 'prosafe_network_management_system')]],
    );
    const described = (value: string): Cve5Containers => ({
      cna: { affected: [{ vendor: 'n/a', product: 'n/a' }], descriptions: [{ lang: 'en', value }] },
    });
    // CVE-2024-40891-like wording (MITRE).
    expect(
      mapCnaKeys(
        table,
        described(
          'Command Injection vulnerability in goform/SetIPTVCfg interface of Tenda AC15 V15.03.05.20 allows …',
        ),
      ),
    ).toMatchObject({ vendors: ['tenda'], products: ['tenda$PRODUCT$ac15_firmware'] });
    expect(
      mapCnaKeys(table, described('An issue in Netgear ProSAFE Network Management System 1.7.0.34 allows …'))
        .products,
    ).toEqual(['netgear$PRODUCT$prosafe_network_management_system']);
  });

  it('takes the CNA for the vendor of a record naming none when its records agree', () => {
    // Intel's "n/a" records named `intel` 113 times of 135; MITRE's name thousands of vendors.
    const byCna = (
      shortName: string,
      keys: string[] = [],
      product = 'Intel(R) PROSet/Wireless WiFi Software',
    ): Cve5Containers => ({
      cna: {
        providerMetadata: { shortName },
        affected: [{ vendor: 'n/a', product }],
        descriptions: [
          {
            lang: 'en',
            value: 'Improper initialization in the Linux kernel mode driver for some Intel(R) Ethernet …',
          },
        ],
      },
      adp: keys.length ? [{ affected: [{ cpes: keys }] }] : [],
    });
    const table = learn([
      ...times(
        5,
        byCna('intel', [cpe('intel', 'ethernet_controller')], 'Intel(R) Ethernet Network Controllers'),
      ),
      ...times(2, record([{ vendor: 'Linux', product: 'Linux' }], [cpe('linux', 'linux_kernel', 'o')])),
    ]);
    const mapped = mapCnaKeys(table, byCna('intel'));
    expect(mapped.vendors).toEqual(['intel']);
    expect(mapped.evidence.intel).toEqual({
      source: 'cna-text',
      rule: 'alias',
      text: '@intel',
      support: 5,
      records: 5,
    });
    // Under the CNA threshold (5 records), the description's first vendor is all there is.
    expect(
      mapCnaKeys(
        learn(times(2, record([{ vendor: 'Linux', product: 'Linux' }], [cpe('linux', 'linux_kernel', 'o')]))),
        byCna('intel'),
      ).vendors,
    ).toEqual(['linux']);
  });

  it('ships a compact table that maps the same', () => {
    const records = [
      ...times(3, record([{ vendor: 'D-Link', product: 'DIR-605L' }], [cpe('dlink', 'dir-605l', 'h')])),
      record([{ vendor: 'D-Link', product: 'DIR-605L' }], [cpe('d-link', 'dir-605l', 'h')]),
      record([{ vendor: 'Acme', product: 'Widget' }], [cpe('acme', 'widget')]),
    ];
    const table = learn(records);
    const compact = compactTable(table);
    expect(compact.vendors.dlink).toEqual({ records: 4, keys: { dlink: 3 } });
    // A text seen once keeps its count: it is known, not new.
    expect(compact.vendors.acme).toEqual({ records: 1, keys: {} });
    for (const r of [...records, record([{ vendor: 'ACME', product: 'Widget' }])]) {
      expect(mapCnaKeys(compact, r)).toEqual(mapCnaKeys(table, r));
    }
  });
});

describe('vendor-aliases: candidates, minting and per-entry learning (issue 30)', () => {
  it('checks candidate spellings against the CPE vocabulary', () => {
    const table = learn(
      [],
      [
        [cpe('dlink', 'dir-605l_firmware', 'o')],
        [cpe('qnap', 'qts', 'o')],
        [cpe('apache', 'log4j')],
        [cpe('paloaltonetworks', 'pan-os', 'o')],
        [cpe('redhat', 'enterprise_linux', 'o')],
      ],
    );
    const map = (vendor: string, product: string) => mapCnaKeys(table, record([{ vendor, product }]));
    // Hyphen dropped; the device's firmware.
    expect(map('D-Link', 'DIR-605L')).toMatchObject({
      vendors: ['dlink'],
      products: ['dlink$PRODUCT$dir-605l_firmware'],
    });
    // Legal form and generic words dropped.
    expect(map('QNAP Systems Inc.', 'QTS').vendors).toEqual(['qnap']);
    // Words joined.
    expect(map('Palo Alto Networks', 'PAN-OS').products).toEqual(['paloaltonetworks$PRODUCT$pan-os']);
    // The vendor's own prefix and the trailing version dropped: Apache Log4j2 → log4j2 → log4j.
    const log4j = map('Apache Software Foundation', 'Apache Log4j2');
    expect(log4j.vendors).toEqual(['apache']);
    expect(log4j.products).toEqual(['apache$PRODUCT$log4j']);
    expect(log4j.evidence['apache$PRODUCT$log4j']).toMatchObject({ rule: 'name' });
    // Trailing version words dropped.
    expect(map('Red Hat', 'Red Hat Enterprise Linux 9').products).toEqual([
      'redhat$PRODUCT$enterprise_linux',
    ]);
  });

  it('mints names by the CPE conventions', () => {
    expect(mintedName('QNAP Systems Inc.')).toBe('qnap_systems');
    expect(mintedName('D-Link')).toBe('d-link');
    expect(mintedName('Zyxel Co., Ltd')).toBe('zyxel');
    expect(mintedName('The Wikimedia Foundation')).toBe('wikimedia_foundation');
    expect(mintedName('Hewlett Packard Enterprise (HPE)')).toBe('hewlett_packard_enterprise');
    expect(mintedName('goTenna')).toBe('gotenna');
    expect(mintedName('Node.js')).toBe('node.js');
    expect(mintedName('n/a')).toBeUndefined();
    expect(mintedName('  ')).toBeUndefined();
    expect(mintedProductName('Apache Log4j2', 'Apache Software Foundation', 'apache')).toBe('log4j');
    expect(mintedProductName('Red Hat Enterprise Linux 9', 'Red Hat', 'redhat')).toBe('enterprise_linux');
    expect(mintedProductName('OpenPLC_v3', 'OpenPLC', 'openplc')).toBe('openplc_v3');
    // A device's model keeps its digits; a glued version goes only after a name with digits.
    expect(mintedProductName('Halo9', 'Alpine', 'alpine')).toBe('halo9');
    expect(mintedProductName('AC1200 T8', 'TOTOLINK', 'totolink')).toBe('ac1200_t8');
    expect(mintedProductName('DIR-878', 'D-Link', 'd-link')).toBe('dir-878');
    expect(mintedProductName('Radio Player – Live Shoutcast for WordPress', 'x', 'x')).toBe('radio_player');
  });

  it('learns each affected entry with its own product: a FortiOS-only record gets no FortiProxy key', () => {
    // Records shaped like Fortinet's: FortiOS and FortiProxy listed together, CISA-ADP naming both.
    const both = record(
      [
        { vendor: 'Fortinet', product: 'FortiOS' },
        { vendor: 'Fortinet', product: 'FortiProxy' },
      ],
      [cpe('fortinet', 'fortios', 'o'), cpe('fortinet', 'fortiproxy')],
    );
    const table = learn(times(3, both));
    expect(table.products[`fortinet${PAIR}fortios`]).toEqual({
      records: 3,
      keys: { fortinet$PRODUCT$fortios: 3 },
    });
    const fortios = mapCnaKeys(table, record([{ vendor: 'Fortinet', product: 'FortiOS' }]));
    expect(fortios.vendors).toEqual(['fortinet']);
    expect(fortios.products).toEqual(['fortinet$PRODUCT$fortios']);
    // A record with one product text still teaches every key of the record ("Acrobat Reader").
    const acrobat = learn(
      times(
        2,
        record(
          [{ vendor: 'Adobe', product: 'Acrobat Reader' }],
          [cpe('adobe', 'acrobat_dc'), cpe('adobe', 'acrobat_reader_dc')],
        ),
      ),
    );
    expect(mapCnaKeys(acrobat, record([{ vendor: 'Adobe', product: 'Acrobat Reader' }])).products).toEqual([
      'adobe$PRODUCT$acrobat_dc',
      'adobe$PRODUCT$acrobat_reader_dc',
    ]);
    // The one entry no CPE spells like gets the keys no other entry took.
    const windows = learn(
      times(
        2,
        record(
          [
            { vendor: 'Microsoft', product: 'Windows Server 2022' },
            { vendor: 'Microsoft', product: 'Windows 11 version 23H2' },
          ],
          [cpe('microsoft', 'windows_server_2022', 'o'), cpe('microsoft', 'windows_11_23h2', 'o')],
        ),
      ),
    );
    expect(
      mapCnaKeys(windows, record([{ vendor: 'Microsoft', product: 'Windows Server 2022' }])).products,
    ).toEqual(['microsoft$PRODUCT$windows_server_2022']);
    expect(
      mapCnaKeys(windows, record([{ vendor: 'Microsoft', product: 'Windows 11 version 23H2' }])).products,
    ).toEqual(['microsoft$PRODUCT$windows_11_23h2']);
  });
});
