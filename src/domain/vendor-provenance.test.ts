import { describe, expect, it } from 'vitest';
import { deriveVendorKeys, type KeyStatement, type TextMapper } from './vendor-provenance.ts';
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
