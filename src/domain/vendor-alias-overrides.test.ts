import { describe, expect, it } from 'vitest';
import {
  aliasLookup,
  isCatalogKey,
  mapCnaKeysWithOverrides,
  overrideProblem,
} from './vendor-alias-overrides.ts';
import { AliasLearner } from './vendor-aliases.ts';

/** Two records in which CISA-ADP's CPEs say what "Apple" / "macOS" means. */
function table() {
  const learner = new AliasLearner();
  for (let i = 0; i < 2; i++) {
    learner.learn({
      cna: { affected: [{ vendor: 'Apple', product: 'macOS' }] },
      adp: [{ affected: [{ cpes: ['cpe:2.3:o:apple:mac_os:*:*:*:*:*:*:*:*'] }] }],
    });
  }
  return learner.toJSON();
}
const apple = { cna: { affected: [{ vendor: 'Apple Inc.', product: 'macOS' }] } };

describe('operator overrides over the learned mapping', () => {
  it('maps as learned when there is none', () => {
    const mapped = mapCnaKeysWithOverrides(table(), [], apple);
    expect([...mapped.vendors, ...mapped.products]).toEqual(['apple', 'apple$PRODUCT$mac_os']);
  });

  it('a product veto takes the product key and keeps the vendor key', () => {
    const mapped = mapCnaKeysWithOverrides(
      table(),
      [{ vendorText: 'Apple', productText: 'macOS', key: 'apple$PRODUCT$mac_os', action: 'veto' }],
      apple,
    );
    expect(mapped.vendors).toEqual(['apple']);
    expect(mapped.products).toEqual([]);
    expect(mapped.evidence['apple$PRODUCT$mac_os']).toBeUndefined();
  });

  it('an alias gives its key to the text it names, spelled any way the learner reads as the same', () => {
    const mapped = mapCnaKeysWithOverrides(
      table(),
      [{ vendorText: 'APPLE', productText: 'Mac OS', key: 'apple$PRODUCT$macos', action: 'add' }],
      { cna: { affected: [{ vendor: 'Apple', product: 'Mac OS' }] } },
    );
    expect(mapped.products).toContain('apple$PRODUCT$macos');
    expect(mapped.evidence['apple$PRODUCT$macos']).toEqual({
      source: 'cna-text',
      rule: 'operator',
      text: 'Apple / Mac OS',
    });
  });

  it("never touches the keys of the CNA's own CPEs", () => {
    const mapped = mapCnaKeysWithOverrides(table(), [{ vendorText: 'Apple', key: 'apple', action: 'veto' }], {
      cna: {
        affected: [{ vendor: 'Apple', product: 'macOS', cpes: ['cpe:2.3:o:apple:macos:14.0:*:*:*:*:*:*:*'] }],
      },
    });
    expect(mapped.vendors).toEqual(['apple']);
    expect(mapped.evidence.apple).toMatchObject({ source: 'cpe:cna' });
  });

  it('reads texts and keys as the learner does', () => {
    expect(aliasLookup('QNAP Systems Inc.')).toBe(aliasLookup('qnap'));
    expect(aliasLookup('n/a')).toBeUndefined();
    expect(isCatalogKey('apache$PRODUCT$log4j')).toBe(true);
    expect(isCatalogKey('Apache')).toBe(false);
    expect(isCatalogKey('apache$PRODUCT$')).toBe(false);
    expect(overrideProblem({ vendorText: 'Apache', key: 'apache', action: 'add' })).toBeUndefined();
  });
});

describe('an alias over a minted key', () => {
  const minted = () => ({
    vendors: ['acme_widgets'],
    products: ['acme_widgets$PRODUCT$gizmo'],
    evidence: {
      acme_widgets: { source: 'cna-text', rule: 'cna-name', text: 'Acme Widgets' } as const,
      acme_widgets$PRODUCT$gizmo: {
        source: 'cna-text',
        rule: 'cna-name',
        text: 'Acme Widgets / Gizmo',
      } as const,
    },
  });
  const record = { cna: { affected: [{ vendor: 'Acme Widgets', product: 'Gizmo' }] } };

  it('supersedes the minted vendor key and moves its minted product under the alias vendor', () => {
    const mapped = mapCnaKeysWithOverrides(
      table(),
      [{ vendorText: 'Acme Widgets', key: 'acme', action: 'add' }],
      record,
      minted,
    );
    expect(mapped.vendors).toEqual(['acme']);
    expect(mapped.products).toEqual(['acme$PRODUCT$gizmo']);
    expect(mapped.evidence['acme$PRODUCT$gizmo']).toMatchObject({ rule: 'cna-name' });
  });

  it('a product alias supersedes the minted product key; a veto of the alias leaves the minted keys', () => {
    const product = mapCnaKeysWithOverrides(
      table(),
      [{ vendorText: 'Acme Widgets', productText: 'Gizmo', key: 'acme$PRODUCT$gizmo', action: 'add' }],
      record,
      minted,
    );
    expect([...product.vendors, ...product.products]).toEqual(['acme_widgets', 'acme$PRODUCT$gizmo']);
    const vetoed = mapCnaKeysWithOverrides(
      table(),
      [{ vendorText: 'Acme Widgets', key: 'acme', action: 'veto' }],
      record,
      minted,
    );
    expect([...vetoed.vendors, ...vetoed.products]).toEqual(['acme_widgets', 'acme_widgets$PRODUCT$gizmo']);
  });
});
