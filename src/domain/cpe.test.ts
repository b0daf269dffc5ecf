import { describe, expect, it } from 'vitest';
import {
  normalizeName,
  normalizeProductName,
  normalizeVendorName,
  parseCpe,
  PRODUCT_SEPARATOR,
  splitVendorKey,
  vendorKey,
  vendorKeyLabel,
  vendorKeyOfLabel,
  vendorKeysOfCpe,
} from './cpe.ts';

describe('cpe', () => {
  describe('parseCpe', () => {
    it('reads part, vendor, product and version of a CPE 2.3 formatted string', () => {
      expect(parseCpe('cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*')).toEqual({
        part: 'a',
        vendor: 'apache',
        product: 'log4j',
        version: '2.14.1',
      });
    });

    it('does not split a 2.3 string on a backslash-escaped colon and keeps the escape as written', () => {
      // Real NVD criteria (CVE-2021-44228 configurations).
      expect(parseCpe('cpe:2.3:a:cisco:dna_spaces\\:_connector:*:*:*:*:*:*:*:*')).toEqual({
        part: 'a',
        vendor: 'cisco',
        product: 'dna_spaces\\:_connector',
        version: '*',
      });
      expect(parseCpe('cpe:2.3:a:cisco:cloudcenter_suite:4.10\\(0.15\\):*:*:*:*:*:*:*')?.version).toBe(
        '4.10\\(0.15\\)',
      );
    });

    it('reads a CPE 2.2 URI, with or without a version', () => {
      expect(parseCpe('cpe:/o:redhat:enterprise_linux:6')).toEqual({
        part: 'o',
        vendor: 'redhat',
        product: 'enterprise_linux',
        version: '6',
      });
      expect(parseCpe('cpe:/a:openssl:openssl')).toEqual({
        part: 'a',
        vendor: 'openssl',
        product: 'openssl',
        version: '',
      });
    });

    it('percent-decodes the vendor and product of a 2.2 URI', () => {
      expect(parseCpe('cpe:/a:foo%21bar:baz%7equx:1.0')).toMatchObject({
        vendor: 'foo!bar',
        product: 'baz~qux',
      });
    });

    it('keeps the `*` (ANY) and `-` (NA) values as they are', () => {
      expect(parseCpe('cpe:2.3:h:siemens:application_processing_engine:-:*:*:*:*:*:*:*')).toMatchObject({
        part: 'h',
        product: 'application_processing_engine',
        version: '-',
      });
      expect(parseCpe('cpe:2.3:a:*:*:*:*:*:*:*:*:*:*')).toMatchObject({ vendor: '*', product: '*' });
    });

    it('returns undefined when the text is not a CPE or is too short to name a product', () => {
      expect(parseCpe('apache:log4j')).toBeUndefined();
      expect(parseCpe('')).toBeUndefined();
      expect(parseCpe('cpe:2.3:a:apache')).toBeUndefined();
      expect(parseCpe('cpe:2.2:a:apache:log4j')).toBeUndefined();
    });
  });

  describe('vendorKeysOfCpe', () => {
    it('gives the vendor and the vendor$PRODUCT$product keys of a 2.3 string', () => {
      expect(vendorKeysOfCpe('cpe:2.3:a:tukaani:xz:5.6.0:*:*:*:*:*:*:*')).toEqual([
        'tukaani',
        'tukaani$PRODUCT$xz',
      ]);
    });

    it('gives the same keys for a 2.2 URI (fields 3 and 4)', () => {
      expect(vendorKeysOfCpe('cpe:/o:redhat:enterprise_linux:8')).toEqual([
        'redhat',
        'redhat$PRODUCT$enterprise_linux',
      ]);
    });

    it('lower-cases vendor and product', () => {
      expect(vendorKeysOfCpe('cpe:2.3:a:Apache:Log4J:2.0:*:*:*:*:*:*:*')).toEqual([
        'apache',
        'apache$PRODUCT$log4j',
      ]);
    });

    it('gives only the vendor key when the product is `*`, `-` or empty', () => {
      expect(vendorKeysOfCpe('cpe:2.3:a:apache:*:*:*:*:*:*:*:*:*')).toEqual(['apache']);
      expect(vendorKeysOfCpe('cpe:2.3:a:apache:-:*:*:*:*:*:*:*:*')).toEqual(['apache']);
      expect(vendorKeysOfCpe('cpe:/a:apache')).toEqual(['apache']);
    });

    it('gives no key when the vendor is `*`, `-` or missing, or the text is not a CPE', () => {
      expect(vendorKeysOfCpe('cpe:2.3:a:*:log4j:*:*:*:*:*:*:*:*')).toEqual([]);
      expect(vendorKeysOfCpe('cpe:2.3:a:-:log4j:*:*:*:*:*:*:*:*')).toEqual([]);
      expect(vendorKeysOfCpe('cpe:/a')).toEqual([]);
      expect(vendorKeysOfCpe('log4j')).toEqual([]);
    });

    it('keeps an escaped colon inside the product key', () => {
      expect(vendorKeysOfCpe('cpe:2.3:a:cisco:dna_spaces\\:_connector:*:*:*:*:*:*:*:*')).toEqual([
        'cisco',
        'cisco$PRODUCT$dna_spaces\\:_connector',
      ]);
    });
  });

  describe('vendorKey / splitVendorKey', () => {
    it('joins vendor and product with $PRODUCT$ and splits them back', () => {
      expect(PRODUCT_SEPARATOR).toBe('$PRODUCT$');
      expect(vendorKey('apache')).toBe('apache');
      expect(vendorKey('apache', 'log4j')).toBe('apache$PRODUCT$log4j');
      expect(splitVendorKey('apache$PRODUCT$log4j')).toEqual({ vendor: 'apache', product: 'log4j' });
      expect(splitVendorKey('apache')).toEqual({ vendor: 'apache' });
    });

    it('splits on the first separator only', () => {
      expect(splitVendorKey('a$PRODUCT$b$PRODUCT$c')).toEqual({ vendor: 'a', product: 'b$PRODUCT$c' });
    });
  });

  describe('normalizeName', () => {
    it('turns a CNA vendor or product name into a lower-case catalog name with `_` for blanks', () => {
      expect(normalizeName('Apache Software Foundation')).toBe('apache_software_foundation');
      expect(normalizeName('PHP Group')).toBe('php_group');
      expect(normalizeName('Red Hat Enterprise Linux 9')).toBe('red_hat_enterprise_linux_9');
      expect(normalizeName('  Node.js  ')).toBe('node.js');
      expect(normalizeName('C++ Builder')).toBe('c++_builder');
    });

    it('drops characters CPE names do not use and trims separators at the ends', () => {
      expect(normalizeName('Acme, Inc.')).toBe('acme_inc');
      expect(normalizeName('(Foo) -- Bar!')).toBe('foo_--_bar');
    });

    it('returns undefined for placeholders and empty values', () => {
      for (const v of ['n/a', 'N/A', 'NA', 'unknown', 'Unspecified', 'none', '', '   ', '!!!', undefined]) {
        expect(normalizeName(v), String(v)).toBeUndefined();
      }
    });
  });

  describe('normalizeVendorName', () => {
    it('spells a CNA vendor name as CPE does: corporate suffixes dropped, words run together', () => {
      expect(normalizeVendorName('Red Hat')).toBe('redhat');
      expect(normalizeVendorName('PHP Group')).toBe('php');
      expect(normalizeVendorName('Apache Software Foundation')).toBe('apache');
      expect(normalizeVendorName('Palo Alto Networks')).toBe('paloaltonetworks');
      expect(normalizeVendorName('Google LLC')).toBe('google');
      expect(normalizeVendorName('Acme, Inc.')).toBe('acme');
      expect(normalizeVendorName('Microsoft Corporation')).toBe('microsoft');
    });

    it('keeps a name that is only a suffix word, and drops placeholders', () => {
      expect(normalizeVendorName('Foundation')).toBe('foundation');
      expect(normalizeVendorName('n/a')).toBeUndefined();
      expect(normalizeVendorName(undefined)).toBeUndefined();
    });
  });

  describe('normalizeProductName', () => {
    it("drops the vendor's own words from the front of the product name", () => {
      expect(normalizeProductName('Red Hat Enterprise Linux 9', 'Red Hat')).toBe('enterprise_linux_9');
      expect(normalizeProductName('Apache Log4j2', 'Apache Software Foundation')).toBe('log4j2');
      expect(normalizeProductName('Google Chrome', 'Google LLC')).toBe('chrome');
    });

    it('keeps a product named like its vendor, or with no vendor', () => {
      expect(normalizeProductName('PHP', 'PHP Group')).toBe('php');
      expect(normalizeProductName('Apache', 'Apache Software Foundation')).toBe('apache');
      expect(normalizeProductName('Log4j', undefined)).toBe('log4j');
      expect(normalizeProductName('n/a', 'Red Hat')).toBeUndefined();
    });
  });

  describe('vendorKeyLabel', () => {
    it('names a vendor, or a product after its vendor, as people write them', () => {
      expect(vendorKeyLabel('microsoft$PRODUCT$exchange_server')).toBe('Microsoft / Exchange Server');
      expect(vendorKeyLabel('apache')).toBe('Apache');
      expect(vendorKeyLabel('apache$PRODUCT$log4j')).toBe('Apache / Log4j');
      expect(vendorKeyLabel('nodejs$PRODUCT$node.js')).toBe('Nodejs / Node.js');
    });
  });

  describe('vendorKeyOfLabel', () => {
    it('reads words back as the key, and keeps a key as it is', () => {
      expect(vendorKeyOfLabel(' Microsoft / Exchange Server ')).toBe('microsoft$PRODUCT$exchange_server');
      expect(vendorKeyOfLabel('Exchange Server')).toBe('exchange_server');
      expect(vendorKeyOfLabel('apache$PRODUCT$log4j')).toBe('apache$PRODUCT$log4j');
      for (const key of ['microsoft$PRODUCT$exchange_server', 'apache', 'nodejs$PRODUCT$node.js'])
        expect(vendorKeyOfLabel(vendorKeyLabel(key))).toBe(key);
    });
  });
});
