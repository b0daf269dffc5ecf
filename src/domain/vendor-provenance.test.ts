import { describe, expect, it } from 'vitest';
import { deriveVendorKeys, newKeyMerges, type KeyStatement, type TextMapper } from './vendor-provenance.ts';
import type { MappedKeys } from './vendor-aliases.ts';

const statement = (s: Partial<KeyStatement>): KeyStatement => ({ vendors: [], cpes: [], ...s });

/** Maps "Acme Corp" to `acme` and "Acme Corp / Rocket" to `acme$PRODUCT$rocket`, as a learned alias would. */
const acme: TextMapper = (containers) => {
  const out: MappedKeys = { vendors: [], products: [], evidence: {} };
  for (const e of (containers.cna?.affected ?? []) as { vendor?: string; product?: string }[]) {
    if (e.vendor !== 'Acme Corp') continue;
    out.vendors.push('acme');
    out.evidence.acme = { source: 'cna-text', rule: 'alias', text: 'Acme Corp', support: 4, records: 5 };
    if (e.product === 'Rocket') {
      out.products.push('acme$PRODUCT$rocket');
      out.evidence['acme$PRODUCT$rocket'] = {
        source: 'cna-text',
        rule: 'alias',
        text: 'Acme Corp / Rocket',
        support: 2,
        records: 2,
      };
    }
  }
  return out;
};

const NVD_ROCKET = 'cpe:2.3:a:acme:rocket:1.0:*:*:*:*:*:*:*';
const NVD_OTHER = 'cpe:2.3:a:acme_inc:rocket:1.0:*:*:*:*:*:*:*';

describe('deriveVendorKeys', () => {
  it('maps the CNA text of an entry without CPEs, with its evidence', () => {
    const { vendors, provenance } = deriveVendorKeys(
      [['mitre', statement({ affected: [{ vendor: 'Acme Corp', product: 'Rocket' }] })]],
      acme,
    );
    expect(vendors).toEqual(['acme', 'acme$PRODUCT$rocket']);
    expect(provenance.keys.acme).toEqual([
      { source: 'cna-text', rule: 'alias', text: 'Acme Corp', support: 4, records: 5, provider: 'mitre' },
    ]);
    expect(provenance.retracted).toBeUndefined();
  });

  it('gives no key from text without a mapper', () => {
    const { vendors } = deriveVendorKeys([
      ['mitre', statement({ affected: [{ vendor: 'Acme Corp', product: 'Rocket' }] })],
    ]);
    expect(vendors).toEqual([]);
  });

  it('names whose CPEs gave a key: NVD, the CNA, an ADP', () => {
    const { provenance } = deriveVendorKeys([
      ['mitre', statement({ vendors: ['acme'], cpes: ['cpe:2.3:a:acme:*:*:*:*:*:*:*:*:*'] })],
      ['vulnrichment', statement({ vendors: ['acme'], cpes: ['cpe:2.3:a:acme:*:*:*:*:*:*:*:*:*'] })],
      ['nvd', statement({ vendors: ['acme', 'acme$PRODUCT$rocket'], cpes: [NVD_ROCKET] })],
    ]);
    expect(provenance.keys.acme!.map((o) => o.source)).toEqual(['cpe:nvd', 'cpe:cna', 'cpe:adp']);
    expect(provenance.keys['acme$PRODUCT$rocket']).toEqual([
      { source: 'cpe:nvd', provider: 'nvd', cpe: NVD_ROCKET, count: 1 },
    ]);
  });

  it("keeps a text-derived key NVD's CPEs confirm, with both origins", () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp', product: 'Rocket' }] })],
        ['nvd', statement({ vendors: ['acme', 'acme$PRODUCT$rocket'], cpes: [NVD_ROCKET] })],
      ],
      acme,
    );
    expect(vendors).toEqual(['acme', 'acme$PRODUCT$rocket']);
    expect(provenance.keys.acme!.map((o) => o.source)).toEqual(['cpe:nvd', 'cna-text']);
  });

  it("retracts text-derived keys NVD's CPEs do not name, vendor and product alike", () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp', product: 'Rocket' }] })],
        ['nvd', statement({ vendors: ['acme_inc', 'acme_inc$PRODUCT$rocket'], cpes: [NVD_OTHER] })],
      ],
      acme,
    );
    expect(vendors).toEqual(['acme_inc', 'acme_inc$PRODUCT$rocket']);
    expect(Object.keys(provenance.retracted ?? {})).toEqual(['acme', 'acme$PRODUCT$rocket']);
  });

  it('retracts a product key when NVD names the vendor with another product only', () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp', product: 'Rocket' }] })],
        [
          'nvd',
          statement({
            vendors: ['acme', 'acme$PRODUCT$anvil'],
            cpes: ['cpe:2.3:a:acme:anvil:2:*:*:*:*:*:*:*'],
          }),
        ],
      ],
      acme,
    );
    expect(vendors).toEqual(['acme', 'acme$PRODUCT$anvil']);
    expect(Object.keys(provenance.retracted ?? {})).toEqual(['acme$PRODUCT$rocket']);
  });

  it('retracts nothing while NVD names no CPE, nor a key a CPE of the CNA also gives', () => {
    const withoutCpes = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp' }] })],
        ['nvd', statement({})],
      ],
      acme,
    );
    expect(withoutCpes.vendors).toEqual(['acme']);
    const confirmed = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp' }] })],
        ['vulnrichment', statement({ vendors: ['acme'], cpes: ['cpe:2.3:a:acme:*:*:*:*:*:*:*:*:*'] })],
        ['nvd', statement({ vendors: ['acme_inc', 'acme_inc$PRODUCT$rocket'], cpes: [NVD_OTHER] })],
      ],
      acme,
    );
    expect(confirmed.vendors).toEqual(['acme', 'acme_inc', 'acme_inc$PRODUCT$rocket']);
    expect(confirmed.provenance.keys.acme!.map((o) => o.source)).toEqual(['cpe:adp', 'cna-text']);
  });

  it("never retracts an operator's alias", () => {
    const operator: TextMapper = () => ({
      vendors: ['acme'],
      products: [],
      evidence: { acme: { source: 'cna-text', rule: 'operator', text: 'Acme Corp' } },
    });
    const { vendors } = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp' }] })],
        ['nvd', statement({ vendors: ['acme_inc'], cpes: [NVD_OTHER] })],
      ],
      operator,
    );
    expect(vendors).toContain('acme');
  });

  it('drops the keys a statement stored before issue 20 derived from normalized text', () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        [
          'mitre',
          statement({
            vendors: ['acme', 'acme$PRODUCT$rocket'],
            affected: [{ vendor: 'Acme Corp', product: 'Rocket' }],
          }),
        ],
      ],
      () => ({ vendors: [], products: [], evidence: {} }),
    );
    expect(vendors).toEqual([]);
    expect(provenance.keys).toEqual({});
  });

  it('keeps what an OpenCVE knowledge-base section states as it is', () => {
    const { provenance } = deriveVendorKeys([['redhat', statement({ vendors: ['redhat'] })]]);
    expect(provenance.keys).toEqual({ redhat: [{ source: 'stated', provider: 'redhat' }] });
  });

  it('maps nothing of a REJECTED record', () => {
    const { vendors } = deriveVendorKeys(
      [['mitre', statement({ state: 'REJECTED', affected: [{ vendor: 'Acme Corp' }] })]],
      acme,
    );
    expect(vendors).toEqual([]);
  });
});

/** Mints "Acme Widgets" → `acme_widgets` and "Acme Widgets / Gizmo" → `acme_widgets$PRODUCT$gizmo` (rule cna-name). */
const minting: TextMapper = (containers) => {
  const out: MappedKeys = { vendors: [], products: [], evidence: {} };
  for (const e of (containers.cna?.affected ?? []) as {
    vendor?: string;
    product?: string;
    cpes?: string[];
  }[]) {
    // An entry with CPEs gives their keys (mapCnaKeys): its text is not minted.
    if (e.vendor !== 'Acme Widgets' || e.cpes?.length) continue;
    out.vendors.push('acme_widgets');
    out.evidence.acme_widgets = { source: 'cna-text', rule: 'cna-name', text: 'Acme Widgets' };
    if (e.product === 'Gizmo') {
      out.products.push('acme_widgets$PRODUCT$gizmo');
      out.evidence['acme_widgets$PRODUCT$gizmo'] = {
        source: 'cna-text',
        rule: 'cna-name',
        text: 'Acme Widgets / Gizmo',
      };
    }
  }
  return out;
};

const GIZMO = 'cpe:2.3:a:acme:gizmo:2.0:*:*:*:*:*:*:*';
const cna = statement({ affected: [{ vendor: 'Acme Widgets', product: 'Gizmo' }] });

describe('deriveVendorKeys, minted keys', () => {
  it("merges a minted vendor and product into the keys NVD's CPEs name for the CVE", () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        ['mitre', cna],
        ['nvd', statement({ vendors: ['acme', 'acme$PRODUCT$gizmo'], cpes: [GIZMO] })],
      ],
      minting,
    );
    expect(vendors).toEqual(['acme', 'acme$PRODUCT$gizmo']);
    expect(Object.keys(provenance.retracted ?? {})).toEqual(['acme_widgets', 'acme_widgets$PRODUCT$gizmo']);
    expect(provenance.merged).toEqual({
      acme_widgets: { into: 'acme', text: 'Acme Widgets' },
      acme_widgets$PRODUCT$gizmo: { into: 'acme$PRODUCT$gizmo', text: 'Acme Widgets / Gizmo' },
    });
  });

  it("merges on an ADP's CPEs too, which alone retract nothing", () => {
    const { vendors, provenance } = deriveVendorKeys(
      [
        ['mitre', cna],
        ['vulnrichment', statement({ vendors: ['acme', 'acme$PRODUCT$gizmo'], cpes: [GIZMO] })],
      ],
      minting,
    );
    expect(vendors).toEqual(['acme', 'acme$PRODUCT$gizmo']);
    expect(Object.keys(provenance.merged ?? {})).toEqual(['acme_widgets', 'acme_widgets$PRODUCT$gizmo']);
  });

  it("merges on the keys OpenCVE's enrichment states, not on another knowledge-base section's", () => {
    const enriched = deriveVendorKeys(
      [
        ['mitre', cna],
        ['enrichment', statement({ vendors: ['acme', 'acme$PRODUCT$gizmo'] })],
      ],
      minting,
    );
    expect(enriched.vendors).toEqual(['acme', 'acme$PRODUCT$gizmo']);
    expect(enriched.provenance.merged?.acme_widgets?.into).toBe('acme');
    const redhat = deriveVendorKeys(
      [
        ['mitre', cna],
        ['redhat', statement({ vendors: ['redhat'] })],
      ],
      minting,
    );
    expect(redhat.provenance.merged).toBeUndefined();
    expect(redhat.vendors).toEqual(['acme_widgets', 'acme_widgets$PRODUCT$gizmo', 'redhat']);
  });

  it('pairs by the CPEs of an affected entry with the same text, whatever else the CVE names', () => {
    const { provenance } = deriveVendorKeys(
      [
        [
          'mitre',
          statement({
            vendors: ['acme', 'other'],
            cpes: [GIZMO, 'cpe:2.3:a:other:thing:1:*:*:*:*:*:*:*'],
            affected: [
              { vendor: 'Acme Widgets', product: 'Gizmo' },
              { vendor: 'ACME Widgets', cpes: [GIZMO] },
              { vendor: 'Other', cpes: ['cpe:2.3:a:other:thing:1:*:*:*:*:*:*:*'] },
            ],
          }),
        ],
      ],
      minting,
    );
    expect(provenance.merged?.acme_widgets).toEqual({ into: 'acme', text: 'Acme Widgets' });
  });

  it('does not merge when the CPEs name two vendors, nor into a vendor other text explains', () => {
    const two = deriveVendorKeys(
      [
        ['mitre', cna],
        [
          'nvd',
          statement({ vendors: ['acme', 'beta'], cpes: [GIZMO, 'cpe:2.3:a:beta:gizmo:1:*:*:*:*:*:*:*'] }),
        ],
      ],
      minting,
    );
    expect(two.provenance.merged).toBeUndefined();
    // NVD still contradicts the minted keys, as any text-derived key.
    expect(Object.keys(two.provenance.retracted ?? {})).toEqual([
      'acme_widgets',
      'acme_widgets$PRODUCT$gizmo',
    ]);
    const both: TextMapper = (c) => {
      const a = acme(c);
      const m = minting(c);
      return {
        vendors: [...a.vendors, ...m.vendors],
        products: [],
        evidence: { ...a.evidence, ...m.evidence },
      };
    };
    const explained = deriveVendorKeys(
      [
        ['mitre', statement({ affected: [{ vendor: 'Acme Corp' }, { vendor: 'Acme Widgets' }] })],
        ['vulnrichment', statement({ vendors: ['acme'], cpes: [NVD_ROCKET] })],
      ],
      both,
    );
    expect(explained.provenance.merged).toBeUndefined();
    expect(explained.vendors).toEqual(['acme', 'acme_widgets']);
  });

  it("merges a minted key the CVE no longer gives once the CNA's own entry has CPEs", () => {
    const before = deriveVendorKeys([['mitre', cna]], minting).provenance;
    const after = deriveVendorKeys(
      [
        [
          'mitre',
          statement({
            vendors: ['acme', 'acme$PRODUCT$gizmo'],
            cpes: [GIZMO],
            affected: [{ vendor: 'Acme Widgets', product: 'Gizmo', cpes: [GIZMO] }],
          }),
        ],
      ],
      minting,
    ).provenance;
    expect(Object.keys(after.keys)).toEqual(['acme', 'acme$PRODUCT$gizmo']);
    expect(after.merged).toBeUndefined();
    expect(newKeyMerges('CVE-1', before, after)).toEqual([
      { cveId: 'CVE-1', from: 'acme_widgets', into: 'acme', text: 'Acme Widgets' },
      {
        cveId: 'CVE-1',
        from: 'acme_widgets$PRODUCT$gizmo',
        into: 'acme$PRODUCT$gizmo',
        text: 'Acme Widgets / Gizmo',
      },
    ]);
  });

  it('lists only the merges the provenance before did not', () => {
    const merged = { acme_widgets: { into: 'acme', text: 'Acme Widgets' } };
    expect(newKeyMerges('CVE-1', { keys: {} }, { keys: {}, merged })).toEqual([
      { cveId: 'CVE-1', from: 'acme_widgets', into: 'acme', text: 'Acme Widgets' },
    ]);
    expect(newKeyMerges('CVE-1', { keys: {}, merged }, { keys: {}, merged })).toEqual([]);
  });
});
