import { describe, expect, it } from 'vitest';
import { vexDocument, vexState, VEX_STATES } from './inventory-vex.ts';
import type { VexRow } from './inventory.ts';
import { TRIAGE_STATUSES } from './triage.ts';

const subject = {
  organization: 'o',
  project: 'shop',
  id: '8a1f0c9e-0000-4000-8000-000000000001',
  inventory: {
    name: 'backend',
    format: 'cyclonedx' as const,
    specVersion: '1.6',
    componentCount: 1,
    uploadedAt: new Date('2026-11-29T09:00:00Z'),
    uploadedBy: 'ci',
    cveCount: 1,
  },
};
const openssl = { name: 'openssl', version: '1.0.1f', purl: 'pkg:generic/openssl@1.0.1f', ref: 'ssl-1' };
const row = (r: Partial<VexRow>): VexRow => ({
  cve_id: 'CVE-2014-0160',
  resolved_at: null,
  resolution: null,
  status: null,
  components: [openssl],
  comment: null,
  ...r,
});
const now = new Date('2026-11-29T10:00:00Z');

describe('VEX_STATES', () => {
  it('maps every triage status, and no status', () => {
    for (const s of [...TRIAGE_STATUSES, 'none']) expect(VEX_STATES[s], s).toBeDefined();
  });

  it('reads no status as in triage, and an upload’s resolution as resolved', () => {
    expect(vexState(row({}))).toEqual({ cyclonedx: 'in_triage', openvex: 'under_investigation' });
    expect(vexState(row({ resolved_at: now }))).toEqual({ cyclonedx: 'resolved', openvex: 'fixed' });
    expect(vexState(row({ status: 'not_applicable', resolved_at: now }))).toEqual({
      cyclonedx: 'not_affected',
      openvex: 'not_affected',
    });
  });
});

describe('vexDocument', () => {
  it('writes a CycloneDX vulnerability with the justification the comment names, by bom-ref', () => {
    const doc = vexDocument(
      'cyclonedx',
      subject,
      [row({ status: 'not_applicable', comment: 'Code-not-reachable: heartbeat disabled.' })],
      now,
    );
    expect(doc.vulnerabilities).toEqual([
      {
        id: 'CVE-2014-0160',
        source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2014-0160' },
        analysis: {
          state: 'not_affected',
          justification: 'code_not_reachable',
          detail: 'Code-not-reachable: heartbeat disabled.',
        },
        affects: [{ ref: 'ssl-1' }],
      },
    ]);
  });

  it('writes an OpenVEX statement per CVE, products by purl, an action for the affected', () => {
    const doc = vexDocument(
      'openvex',
      subject,
      [
        row({ status: 'not_applicable', comment: 'vulnerable_code_not_present here' }),
        row({ cve_id: 'CVE-2024-3094', status: 'risk_accepted' }),
        row({
          cve_id: 'CVE-2021-44228',
          resolved_at: now,
          resolution: { changes: [{ name: 'log4j-core', before: '2.14.1', after: '2.17.1' }] },
        }),
      ],
      now,
    );
    expect(doc['@context']).toBe('https://openvex.dev/ns/v0.2.0');
    expect(doc.statements).toEqual([
      {
        vulnerability: { name: 'CVE-2014-0160' },
        products: [{ '@id': 'pkg:generic/openssl@1.0.1f' }],
        status: 'not_affected',
        justification: 'vulnerable_code_not_present',
        impact_statement: 'vulnerable_code_not_present here',
      },
      {
        vulnerability: { name: 'CVE-2024-3094' },
        products: [{ '@id': 'pkg:generic/openssl@1.0.1f' }],
        status: 'affected',
        action_statement: 'Risk accepted: will not fix.',
      },
      {
        vulnerability: { name: 'CVE-2021-44228' },
        products: [{ '@id': 'pkg:generic/openssl@1.0.1f' }],
        status: 'fixed',
        status_notes: 'Resolved by inventory backend: log4j-core 2.14.1 → 2.17.1.',
      },
    ]);
  });
});
