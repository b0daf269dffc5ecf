import { describe, expect, it } from 'vitest';
import {
  affectedComparable,
  affectedSourcesOf,
  diffAffected,
  versionSpans,
  type AffectedProduct,
  type AffectedSource,
} from './affected.ts';
import { diffCve } from './cve-change.ts';
import { emptyDocument, mergeCve, type Provider, type SourceDocument } from './cve.ts';

/** Log4Shell's CNA entry (CVE-2021-44228), as its record states it. */
const LOG4J = {
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
};

const docs = (entries: [Provider, Partial<SourceDocument>][]) =>
  new Map(entries.map(([p, d]) => [p, { ...emptyDocument(), ...d }]));

describe('versionSpans', () => {
  it('reads a range with changes as one span per stretch (Log4Shell)', () => {
    expect(
      versionSpans(affectedSourcesOf(docs([['mitre', { affected: [LOG4J] }]]))[0]!.entries[0]!.versions[0]!),
    ).toEqual([
      { status: 'affected', text: 'from 2.0-beta9 before 2.3.1' },
      { status: 'unaffected', text: 'from 2.3.1 before 2.4' },
      { status: 'affected', text: 'from 2.4 before 2.12.2' },
      { status: 'unaffected', text: 'from 2.12.2 before 2.13.0' },
      { status: 'affected', text: 'from 2.13.0 before 2.15.0' },
      { status: 'unaffected', text: 'from 2.15.0 before log4j-core*' },
    ]);
  });

  it('reads open starts and ends, inclusive ends and single versions (the Linux kernel CNA)', () => {
    const text = (v: Parameters<typeof versionSpans>[0]) => versionSpans(v)[0]!.text;
    expect(text({ version: '0', status: 'unaffected', lessThan: '4.6' })).toBe('before 4.6');
    expect(text({ version: '4.19.316', status: 'unaffected', lessThanOrEqual: '4.19.*' })).toBe(
      'from 4.19.316 through 4.19.*',
    );
    expect(text({ version: '6.10', status: 'unaffected', lessThanOrEqual: '*' })).toBe('from 6.10 on');
    expect(text({ version: '0', status: 'affected', lessThan: '*' })).toBe('every version');
    expect(text({ version: '4.6', status: 'affected' })).toBe('4.6');
    expect(text({ version: '2.0.0', status: 'affected', lessThan: '2.15.0' })).toBe(
      'from 2.0.0 before 2.15.0',
    );
  });
});

describe('affectedSourcesOf', () => {
  it('lists the CNA container, then CISA-ADP, with their short names, versions normalized', () => {
    const sources = affectedSourcesOf(
      docs([
        [
          'mitre',
          {
            assigner: 'apache',
            affected: [
              { ...LOG4J, versions: [...LOG4J.versions, { status: 'affected' }], platforms: ['Linux'] },
            ],
          },
        ],
        [
          'vulnrichment',
          {
            affected: [{ vendor: 'apache' }],
            adpAffected: [
              { vendor: 'apache', product: 'log4j', cpes: ['cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*'] },
            ],
          },
        ],
      ]),
    );
    expect(sources.map((s) => [s.source, s.provider])).toEqual([
      ['cna', 'apache'],
      ['adp', 'CISA-ADP'],
    ]);
    // A version statement without a version (schema-invalid) is left out.
    expect(sources[0]!.entries[0]!.versions).toHaveLength(1);
    expect(sources[0]!.entries[0]!.platforms).toEqual(['Linux']);
    expect(sources[1]!.entries).toEqual([
      { vendor: 'apache', product: 'log4j', versions: [], cpes: ['cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*'] },
    ]);
  });

  it('leaves out a container without entries', () => {
    expect(
      affectedSourcesOf(
        docs([
          ['mitre', {}],
          ['nvd', {}],
        ]),
      ),
    ).toEqual([]);
  });
});

describe('diffAffected', () => {
  const source = (lessThan: string): AffectedSource => ({
    source: 'cna',
    provider: 'acme',
    entries: [
      { vendor: 'Acme', product: 'Widget', versions: [{ version: '1.0', status: 'affected', lessThan }] },
    ],
  });

  it('names only the containers that differ, as they were and as they are', () => {
    const adp: AffectedSource = { source: 'adp', provider: 'CISA-ADP', entries: [] };
    expect(diffAffected([source('1.5'), adp], [source('1.6'), adp])).toEqual({
      old: [source('1.5')],
      new: [source('1.6')],
    });
    expect(diffAffected([source('1.5')], [source('1.5')])).toBeUndefined();
    expect(diffAffected([], [adp])).toEqual({ old: [], new: [adp] });
  });
});

describe('affectedComparable', () => {
  it('holds when every CVE 5 statement keeps its container whole', () => {
    expect(
      affectedComparable(
        docs([
          ['mitre', { affectedComplete: true }],
          ['nvd', {}],
        ]),
      ),
    ).toBe(true);
    expect(affectedComparable(docs([['nvd', {}]]))).toBe(true);
    // A statement of the parser before cve5/4 (no platforms, no ADP entries): not compared.
    expect(
      affectedComparable(
        docs([
          ['mitre', { affectedComplete: true }],
          ['vulnrichment', {}],
        ]),
      ),
    ).toBe(false);
  });
});

describe('diffCve: affected', () => {
  const statements = (affected: AffectedProduct[]) =>
    docs([['mitre', { affected, created: '2024-01-01T00:00:00.000Z' }]]);

  it('records an affected change when a range is added, though the merged view is the same', () => {
    const before = statements([LOG4J]);
    const after = statements([
      { ...LOG4J, versions: [...LOG4J.versions, { version: '3.0', status: 'affected' }] },
    ]);
    const view = mergeCve('CVE-2024-0001', before);
    expect(mergeCve('CVE-2024-0001', after)).toEqual(view);
    const affected = { before: affectedSourcesOf(before), after: affectedSourcesOf(after) };
    const change = diffCve(view, view, affected)!;
    expect(change.types).toEqual(['affected']);
    expect(change.data[0]!.details).toEqual({ old: affected.before, new: affected.after });
    expect(diffCve(view, view, { before: affected.before, after: affected.before })).toBeUndefined();
  });
});
