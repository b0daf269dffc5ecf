import { describe, expect, it } from 'vitest';
import { componentKeys, parseComponent, withMappedNames } from './inventory-component.ts';
import type { TextMapper } from './vendor-provenance.ts';

describe('parseComponent', () => {
  it('reads a CPE 2.3 name, its version and update', () => {
    const r = parseComponent('cpe:2.3:a:apache:log4j:2.0:beta9:*:*:*:*:*:*');
    expect(r).toMatchObject({ ok: true, component: { kind: 'cpe', part: 'a', version: '2.0-beta9' } });
    if (r.ok) expect(componentKeys(r.component)).toEqual(['apache$PRODUCT$log4j']);
  });
  it('reads * and - in a CPE version as no version', () => {
    const r = parseComponent('cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*');
    expect(r.ok && r.component.version).toBeUndefined();
  });
  it('reads an object in the catalog spelling and the CNA spelling', () => {
    const r = parseComponent({
      vendor: 'Apache Software Foundation',
      product: 'Apache Log4j2',
      version: '2.14.1',
    });
    expect(r.ok && componentKeys(r.component)).toEqual([
      'apache_software_foundation$PRODUCT$apache_log4j2',
      'apache$PRODUCT$log4j2',
    ]);
  });
  it('says why a component cannot be read', () => {
    const reason = (v: unknown) => {
      const r = parseComponent(v);
      return r.ok ? undefined : r.reason;
    };
    expect(reason('log4j 2.14')).toMatch(/CPE 2\.3 name.*package URL/);
    expect(reason('cpe:2.3:a:*:*:1.0')).toMatch(/vendor and product/);
    expect(reason('cpe:/a:apache:log4j:2.0')).toMatch(/not a CPE 2\.3 name/);
    expect(reason({ vendor: 'x' })).toMatch(/needs a vendor and a product/);
    expect(reason({ vendor: 'x', product: 'y', version: 2 })).toMatch(/version must be a text/);
    expect(reason({ vendor: 'x', product: 'y', versoin: '1' })).toMatch(/unknown field "versoin"/);
    expect(reason(42)).toMatch(/a component is a CPE/);
    expect(reason(null)).toMatch(/a component is a CPE/);
    expect(reason('pkg:9x/x@1')).toMatch(/not a package URL we can read/);
    expect(reason({ purl: 'pkg:npm/x@1', product: 'x' })).toMatch(/unknown field "purl"/);
    expect(reason({ purl: 'pkg:npm/x@1', cpe: 'cpe:2.3:a:x:y:1', supplier: 'x' })).toMatch(
      /unknown field "supplier": an SBOM component has purl, cpe, name, version and vendor/,
    );
    expect(reason({ purl: 42 })).toBe('purl must be a text.');
    expect(reason({ purl: 'maven/x', cpe: 'cpe:/a:x:y' })).toMatch(/^cpe: not a CPE 2\.3 name/);
  });
});

describe('withMappedNames', () => {
  const object = (vendor: string, product: string) => {
    const p = parseComponent({ vendor, product, version: '1.0' });
    if (!p.ok) throw new Error(p.reason);
    return p.component;
  };
  /** A mapper that gives these product keys to any text, as the alias table would for a CNA's. */
  const mapper =
    (...products: string[]): TextMapper =>
    () => ({ vendors: [], products, evidence: {} });

  it('adds the one product key the text maps to, after the names as typed', () => {
    const c = withMappedNames(
      object('Apache Software Foundation', 'Apache Log4j2'),
      mapper('apache$PRODUCT$log4j'),
    );
    expect(componentKeys(c)).toEqual([
      'apache_software_foundation$PRODUCT$apache_log4j2',
      'apache$PRODUCT$log4j2',
      'apache$PRODUCT$log4j',
    ]);
  });

  it('adds nothing when the text maps to several products (keys learned from whole records)', () => {
    const typed = object('Microsoft', 'Windows 11 version 22H3');
    const c = withMappedNames(
      typed,
      mapper('microsoft$PRODUCT$windows_11_22h3', 'microsoft$PRODUCT$windows_10_1809'),
    );
    expect(c).toBe(typed);
  });

  it('leaves CPE names and package URLs alone: they name their product already', () => {
    const p = parseComponent('cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*');
    if (!p.ok) throw new Error(p.reason);
    expect(withMappedNames(p.component, mapper('apache$PRODUCT$log4j2'))).toBe(p.component);
  });
});

describe('parseComponent: SBOM components', () => {
  const read = (value: unknown) => {
    const p = parseComponent(value);
    if (!p.ok) throw new Error(p.reason);
    return p.component;
  };

  it('reads a purl and a CPE together: the CPE pair first, then the purl pairs, and its package names', () => {
    const c = read({
      name: 'openssl',
      version: '1.0.1f',
      purl: 'pkg:generic/openssl@1.0.1f',
      cpe: 'cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*',
    });
    expect(c.kind).toBe('purl');
    expect(c.part).toBe('a');
    expect(c.version).toBe('1.0.1f');
    expect(c.names[0]).toEqual({ vendor: 'openssl', product: 'openssl' });
    expect(c.packageNames).toContain('openssl');
    const xz = read({
      name: 'xz-utils',
      purl: 'pkg:deb/debian/xz-utils@5.6.0?arch=amd64',
      cpe: 'cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*',
    });
    expect(xz.names.map((n) => `${n.vendor}:${n.product}`)).toEqual(
      expect.arrayContaining(['tukaani:xz', 'xz-utils:xz-utils']),
    );
    expect(xz.version).toBe('5.6.0');
  });

  it('matches by the CPE when the purl cannot be read, and by the name when neither is given', () => {
    const c = read({ name: 'openssl', purl: 'pkg:/', cpe: 'cpe:2.3:a:openssl:openssl:1.0.1f' });
    expect(c.kind).toBe('cpe');
    expect(c.names).toEqual([{ vendor: 'openssl', product: 'openssl' }]);
    const byName = read({ name: 'libjpeg', version: '9e' });
    expect(byName).toMatchObject({ kind: 'product', version: '9e' });
    expect(byName.names).toContainEqual({ vendor: 'libjpeg', product: 'libjpeg' });
    const withVendor = read({
      name: 'Apache Log4j2',
      vendor: 'Apache Software Foundation',
      version: '2.14.1',
    });
    expect(withVendor.written).toEqual({ vendor: 'Apache Software Foundation', product: 'Apache Log4j2' });
  });

  it('keeps a component without a version (version unknown)', () => {
    expect(read({ name: 'libjpeg', purl: 'pkg:generic/libjpeg' }).version).toBeUndefined();
  });

  it('takes the version given over the one of the purl', () => {
    expect(read({ purl: 'pkg:npm/left-pad@1.3.0', version: '1.3.1' }).version).toBe('1.3.1');
  });
});
