import { describe, expect, it } from 'vitest';
import { matchCnaAffected } from './cna-affected-match.ts';
import type { AffectedProduct } from './cve.ts';
import { parseComponent, type InventoryComponent } from './inventory-component.ts';
import type { TextMapper } from './vendor-provenance.ts';

function component(value: unknown): InventoryComponent {
  const r = parseComponent(value);
  if (!r.ok) throw new Error(r.reason);
  return r.component;
}

/** The Log4Shell record's CNA entry (CVE-2021-44228, Apache), as written. */
const log4shell: AffectedProduct[] = [
  {
    vendor: 'Apache Software Foundation',
    product: 'Apache Log4j2',
    versions: [
      {
        version: '2.0-beta9',
        status: 'affected',
        lessThan: 'log4j-core*',
        versionType: 'custom',
        changes: [
          { at: '2.3.1', status: 'unaffected' },
          { at: '2.4', status: 'affected' },
          { at: '2.12.2', status: 'unaffected' },
          { at: '2.13.0', status: 'affected' },
          { at: '2.15.0', status: 'unaffected' },
        ],
      },
    ],
  },
];

/** The xz record's first two entries (CVE-2024-3094, Red Hat). */
const xz: AffectedProduct[] = [
  {
    versions: [
      { status: 'affected', version: '5.6.0' },
      { status: 'affected', version: '5.6.1' },
    ],
    packageName: 'xz',
    collectionURL: 'https://github.com/tukaani-project/xz',
    defaultStatus: 'unaffected',
  },
  {
    cpes: ['cpe:/o:redhat:enterprise_linux:6'],
    vendor: 'Red Hat',
    product: 'Red Hat Enterprise Linux 6',
    packageName: 'xz',
    defaultStatus: 'unaffected',
  },
];

const log4j = (version: string) =>
  component({ vendor: 'Apache Software Foundation', product: 'Apache Log4j2', version });

describe('matchCnaAffected', () => {
  it('follows changes[] along a range (Log4Shell: 2.14.1 affected, 2.17.1, 2.12.2 and 2.3.1 not)', () => {
    expect(matchCnaAffected(log4shell, log4j('2.14.1'))).toMatchObject([
      {
        source: 'cna',
        entry: 0,
        matchedBy: 'vendor_product',
        decidedBy: 'version',
        version: { version: '2.0-beta9', lessThan: 'log4j-core*' },
        change: { at: '2.13.0', status: 'affected' },
      },
    ]);
    expect(matchCnaAffected(log4shell, log4j('2.0-beta9'))).toHaveLength(1);
    expect(matchCnaAffected(log4shell, log4j('2.5'))).toHaveLength(1);
    for (const v of ['2.17.1', '2.15.0', '2.12.2', '2.3.1', '2.0-beta8', '1.2.17'])
      expect(matchCnaAffected(log4shell, log4j(v)), v).toEqual([]);
  });

  it('matches the catalog spelling of the CNA names (apache / log4j2)', () => {
    expect(
      matchCnaAffected(log4shell, component({ vendor: 'apache', product: 'log4j2', version: '2.14.1' })),
    ).toHaveLength(1);
    expect(
      matchCnaAffected(log4shell, component({ vendor: 'apache', product: 'log4j', version: '2.14.1' })),
    ).toEqual([]);
  });

  it('ties a purl by packageName and keeps defaultStatus unaffected for other versions (xz)', () => {
    const at = (v: string) => matchCnaAffected(xz, component(`pkg:github/tukaani-project/xz@${v}`));
    expect(at('5.6.1')).toMatchObject([
      {
        entry: 0,
        matchedBy: 'package_name',
        packageName: 'xz',
        collectionURL: 'https://github.com/tukaani-project/xz',
      },
    ]);
    expect(at('5.6.0')).toHaveLength(1);
    expect(at('5.4.6')).toEqual([]);
  });

  it('ties a product named like an entry that names no vendor (xz by its packageName)', () => {
    expect(
      matchCnaAffected(xz, component({ vendor: 'tukaani', product: 'xz', version: '5.6.1' })),
    ).toMatchObject([{ entry: 0, matchedBy: 'package_name' }]);
  });

  it('ranges: lessThanOrEqual, from 0, an exact unaffected entry, git as text, defaultStatus affected', () => {
    const entry = (versions: unknown[], defaultStatus?: string): AffectedProduct[] => [
      { vendor: 'acme', product: 'widget', versions, ...(defaultStatus ? { defaultStatus } : {}) },
    ];
    const at = (a: AffectedProduct[], v: string) =>
      matchCnaAffected(a, component({ vendor: 'acme', product: 'widget', version: v }));
    const le = entry([{ version: '0', lessThanOrEqual: '1.4', status: 'affected', versionType: 'semver' }]);
    expect(at(le, '1.4')).toHaveLength(1);
    expect(at(le, '1.4.1')).toEqual([]);
    const hole = entry([
      { version: '1.0', lessThan: '2.0', status: 'affected' },
      { version: '1.5', status: 'unaffected' },
    ]);
    expect(at(hole, '1.4')).toHaveLength(1);
    expect(at(hole, '1.5')).toEqual([]);
    const git = entry([{ version: 'abc123', lessThan: 'def456', status: 'affected', versionType: 'git' }]);
    expect(at(git, 'abc124')).toEqual([]);
    const byDefault = entry([{ version: '3.0', status: 'unaffected' }], 'affected');
    expect(at(byDefault, '2.0')).toMatchObject([{ decidedBy: 'default_status' }]);
    expect(at(byDefault, '3.0')).toEqual([]);
  });

  it('with no version, names entries that list an affected version', () => {
    expect(matchCnaAffected(log4shell, component({ vendor: 'apache', product: 'log4j2' }))).toMatchObject([
      { entry: 0, version: { version: '2.0-beta9' } },
    ]);
  });
});

describe('matchCnaAffected: a package URL and the alias table', () => {
  const log4jCore = (version: string) =>
    component(`pkg:maven/org.apache.logging.log4j/log4j-core@${version}`);
  /** The alias table as a new install's maps the Log4Shell CNA's text: one product key, apache:log4j. */
  const mapText: TextMapper = (containers) => {
    const [entry] = (Array.isArray(containers.cna?.affected) ? containers.cna.affected : []) as {
      vendor?: string;
      product?: string;
    }[];
    const log4j = entry?.vendor === 'Apache Software Foundation' && entry.product === 'Apache Log4j2';
    return { vendors: [], products: log4j ? ['apache$PRODUCT$log4j'] : [], evidence: {} };
  };

  it('ties the Log4Shell entry to log4j-core through the key the alias table maps its text to', () => {
    expect(matchCnaAffected(log4shell, log4jCore('2.14.1'))).toEqual([]);
    expect(matchCnaAffected(log4shell, log4jCore('2.14.1'), mapText)).toMatchObject([
      {
        entry: 0,
        matchedBy: 'alias',
        decidedBy: 'version',
        change: { at: '2.13.0', status: 'affected' },
        comparison: 'generic',
      },
    ]);
    expect(matchCnaAffected(log4shell, log4jCore('2.17.1'), mapText)).toEqual([]);
  });

  it('ties by packageName only when the collectionURL registry is the purl type’s', () => {
    const maven: AffectedProduct[] = [
      {
        vendor: 'Eclipse Foundation',
        product: 'Jetty',
        packageName: 'org.eclipse.jetty:jetty-servlets',
        collectionURL: 'https://repo.maven.apache.org/maven2/',
        defaultStatus: 'unaffected',
        versions: [
          { status: 'affected', version: '10.0.0', versionType: 'semver', lessThanOrEqual: '10.0.17' },
        ],
      },
      {
        product: 'requests',
        packageName: 'requests',
        collectionURL: 'https://pypi.org/project/requests',
        versions: [{ status: 'affected', version: '0', lessThan: '2.32.0', versionType: 'python' }],
      },
    ];
    expect(
      matchCnaAffected(maven, component('pkg:maven/org.eclipse.jetty/jetty-servlets@10.0.10')),
    ).toMatchObject([{ entry: 0, matchedBy: 'vendor_product', comparison: 'semver' }]);
    expect(matchCnaAffected(maven, component('pkg:maven/org.eclipse.jetty/jetty-servlets@10.0.18'))).toEqual(
      [],
    );
    // The same name in another ecosystem's registry is another package.
    expect(matchCnaAffected(maven, component('pkg:npm/requests@1.0.0'))).toEqual([]);
    expect(matchCnaAffected(maven, component('pkg:pypi/requests@2.31.0'))).toMatchObject([
      { entry: 1, matchedBy: 'package_name', comparison: 'pep440' },
    ]);
  });
});

describe('matchCnaAffected: version schemes', () => {
  const entry = (versionType: string | undefined, version: string, lessThan: string): AffectedProduct[] => [
    {
      vendor: 'acme',
      product: 'widget',
      versions: [{ status: 'affected', version, lessThan, ...(versionType ? { versionType } : {}) }],
    },
  ];
  const at = (list: AffectedProduct[], version: string) =>
    matchCnaAffected(list, component({ vendor: 'acme', product: 'widget', version }));

  it('semver: a pre-release is before its release; a version semver cannot read falls back to generic', () => {
    const list = entry('semver', '1.0.0', '2.0.0');
    expect(at(list, '2.0.0-rc.1')).toMatchObject([{ comparison: 'semver' }]);
    expect(at(list, '2.0.0')).toEqual([]);
    expect(at(list, '1.5')).toMatchObject([{ comparison: 'semver' }]); // 1.5 read as 1.5.0
    expect(at(list, '1.9.4.v20231009')).toMatchObject([{ comparison: 'generic' }]);
  });

  it('pep440: post-releases after, release candidates before the release', () => {
    const list = entry('python', '0', '1.0.post1');
    expect(at(list, '1.0')).toMatchObject([{ comparison: 'pep440' }]);
    expect(at(list, '1.0rc1')).toMatchObject([{ comparison: 'pep440' }]);
    expect(at(list, '1.0.post1')).toEqual([]);
  });

  it('an unknown or absent versionType is compared by the generic rule, and the rule says so', () => {
    expect(at(entry('maven', '1.0', '2.0'), '1.5')).toMatchObject([{ comparison: 'generic' }]);
    expect(at(entry('frobnicator', '1.0', '2.0'), '1.5')).toMatchObject([{ comparison: 'generic' }]);
    expect(at(entry(undefined, '1.0', '2.0'), '1.5')).toMatchObject([{ comparison: 'generic' }]);
  });

  it('debian: the epoch counts, the revision after the upstream version', () => {
    const list = entry('debian', '0', '1:2.0-1');
    expect(at(list, '2.0')).toMatchObject([{ comparison: 'debian' }]); // epoch 0 < 1
    expect(at(list, '1:2.0')).toMatchObject([{ comparison: 'debian' }]); // no revision < -1
    expect(at(list, '1:2.0-1')).toEqual([]);
    expect(at(entry('debian', '0', '2.0.1'), '2.0-1')).toMatchObject([{ comparison: 'debian' }]);
  });
});
