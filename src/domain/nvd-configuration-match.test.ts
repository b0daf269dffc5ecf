import { describe, expect, it } from 'vitest';
import type { NvdConfiguration } from './cve.ts';
import { parseComponent, type InventoryComponent } from './inventory-component.ts';
import { matchNvdConfigurations } from './nvd-configuration-match.ts';

function component(value: unknown): InventoryComponent {
  const r = parseComponent(value);
  if (!r.ok) throw new Error(r.reason);
  return r.component;
}

const m = (criteria: string, vulnerable: boolean, range: Record<string, string> = {}) => ({
  criteria,
  matchCriteriaId: 'id',
  vulnerable,
  ...range,
});

/** Heartbleed's first node and one "firmware running on hardware" configuration, as NVD's 1.1 feed gives them. */
const heartbleed: NvdConfiguration[] = [
  {
    nodes: [
      {
        operator: 'OR',
        negate: false,
        cpeMatch: [
          m('cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*', true, {
            versionStartIncluding: '1.0.1',
            versionEndExcluding: '1.0.1g',
          }),
        ],
      },
    ],
  },
  {
    operator: 'AND',
    negate: false,
    nodes: [
      {
        operator: 'OR',
        negate: false,
        cpeMatch: [m('cpe:2.3:o:siemens:cp_1543-1_firmware:1.1:*:*:*:*:*:*:*', true)],
      },
      { operator: 'OR', negate: false, cpeMatch: [m('cpe:2.3:h:siemens:cp_1543-1:-:*:*:*:*:*:*:*', false)] },
    ],
  },
];

describe('matchNvdConfigurations', () => {
  it('matches a version inside a range and not one at its excluded end (1.0.1f yes, 1.0.1g no)', () => {
    expect(
      matchNvdConfigurations(heartbleed, component('cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*')),
    ).toEqual([
      {
        source: 'nvd',
        configuration: 0,
        criteria: 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*',
        matchCriteriaId: 'id',
        bounds: { startIncluding: '1.0.1', endExcluding: '1.0.1g' },
        conditions: 'met',
        unknownConditions: [],
        comparison: 'generic',
      },
    ]);
    expect(
      matchNvdConfigurations(
        heartbleed,
        component({ vendor: 'openssl', product: 'openssl', version: '1.0.1g' }),
      ),
    ).toEqual([]);
    expect(
      matchNvdConfigurations(
        heartbleed,
        component({ vendor: 'openssl', product: 'openssl', version: '1.0.0' }),
      ),
    ).toEqual([]);
  });

  it('reports an AND with a platform as matched, the platform condition unknown', () => {
    const rules = matchNvdConfigurations(
      heartbleed,
      component('cpe:2.3:o:siemens:cp_1543-1_firmware:1.1:*:*:*:*:*:*:*'),
    );
    expect(rules).toMatchObject([
      {
        configuration: 1,
        conditions: 'unknown',
        unknownConditions: ['cpe:2.3:h:siemens:cp_1543-1:-:*:*:*:*:*:*:*'],
      },
    ]);
    expect(
      matchNvdConfigurations(heartbleed, component('cpe:2.3:o:siemens:cp_1543-1_firmware:1.2:*:*:*:*:*:*:*')),
    ).toEqual([]);
  });

  it('never reports the non-vulnerable platform itself', () => {
    expect(
      matchNvdConfigurations(heartbleed, component('cpe:2.3:h:siemens:cp_1543-1:-:*:*:*:*:*:*:*')),
    ).toEqual([]);
  });

  it('matches exact versions with their update field (xz 5.6.0, 5.6.1; not 5.4.6)', () => {
    const xz: NvdConfiguration[] = [
      {
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              m('cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*', true),
              m('cpe:2.3:a:tukaani:xz:5.6.1:*:*:*:*:*:*:*', true),
            ],
          },
        ],
      },
    ];
    const at = (v: string) =>
      matchNvdConfigurations(xz, component({ vendor: 'tukaani', product: 'xz', version: v }));
    expect(at('5.6.0').map((r) => r.criteria)).toEqual(['cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*']);
    expect(at('5.6.1')).toHaveLength(1);
    expect(at('5.4.6')).toEqual([]);
    const beta: NvdConfiguration[] = [
      {
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [m('cpe:2.3:a:apache:log4j:2.0:beta9:*:*:*:*:*:*', true)],
          },
        ],
      },
    ];
    expect(
      matchNvdConfigurations(beta, component('cpe:2.3:a:apache:log4j:2.0:beta9:*:*:*:*:*:*')),
    ).toHaveLength(1);
    expect(matchNvdConfigurations(beta, component('cpe:2.3:a:apache:log4j:2.0:*:*:*:*:*:*:*'))).toEqual([]);
  });

  it('respects negate: a negated node that holds rules the configuration out', () => {
    const conf: NvdConfiguration[] = [
      {
        operator: 'AND',
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [m('cpe:2.3:a:v:p:*:*:*:*:*:*:*:*', true, { versionEndExcluding: '3.0' })],
          },
          { operator: 'OR', negate: true, cpeMatch: [m('cpe:2.3:a:v:p:2.5:*:*:*:*:*:*:*', false)] },
        ],
      },
    ];
    expect(
      matchNvdConfigurations(conf, component({ vendor: 'v', product: 'p', version: '2.4' })),
    ).toMatchObject([{ conditions: 'met' }]);
    expect(matchNvdConfigurations(conf, component({ vendor: 'v', product: 'p', version: '2.5' }))).toEqual(
      [],
    );
  });

  it('names the vulnerable criteria of the product when the component has no version', () => {
    const rules = matchNvdConfigurations(heartbleed, component({ vendor: 'openssl', product: 'openssl' }));
    expect(rules).toMatchObject([{ configuration: 0, conditions: 'unknown', unknownConditions: [] }]);
  });
});

describe('matchNvdConfigurations on odd stored data', () => {
  it('skips nodes and criteria that are not what NVD writes, without throwing', () => {
    const odd = [
      {
        nodes: [
          null,
          { operator: 'OR', negate: false },
          { operator: 'OR', negate: false, cpeMatch: [{}, m('cpe:2.3:a:v:p:1.0:*:*:*:*:*:*:*', true)] },
        ],
      },
      { nodes: 'x' },
    ] as unknown as NvdConfiguration[];
    expect(
      matchNvdConfigurations(odd, component({ vendor: 'v', product: 'p', version: '1.0' })),
    ).toHaveLength(1);
  });
});

describe('matchNvdConfigurations: a Maven purl against NVD’s product name', () => {
  /** One of the ranges NVD gives Log4Shell (cpe:2.3:a:apache:log4j, 2.13.0 ≤ v < 2.15.0). */
  const log4shell: NvdConfiguration[] = [
    {
      nodes: [
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            m('cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*', true, {
              versionStartIncluding: '2.13.0',
              versionEndExcluding: '2.15.0',
            }),
          ],
        },
      ],
    },
  ];

  it('reaches apache:log4j from pkg:maven/org.apache.logging.log4j/log4j-core (2.14.1 yes, 2.17.1 no)', () => {
    const at = (v: string) =>
      matchNvdConfigurations(log4shell, component(`pkg:maven/org.apache.logging.log4j/log4j-core@${v}`));
    expect(at('2.14.1')).toMatchObject([
      { criteria: 'cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*', conditions: 'met' },
    ]);
    expect(at('2.17.1')).toEqual([]);
  });
});
