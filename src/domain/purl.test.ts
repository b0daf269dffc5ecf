import { describe, expect, it } from 'vitest';
import { parsePurl, purlCpeNames, purlPackageNames, registryPurlType, type Purl } from './purl.ts';

function purl(text: string): Purl {
  const r = parsePurl(text);
  if (!r.ok) throw new Error(r.reason);
  return r.purl;
}

describe('parsePurl', () => {
  it('reads type, namespace, name and version, dropping qualifiers and subpath', () => {
    expect(purl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar#x')).toEqual({
      type: 'maven',
      namespace: 'org.apache.logging.log4j',
      name: 'log4j-core',
      version: '2.14.1',
    });
    expect(purl('pkg:npm/%40angular/core@1.0.0')).toEqual({
      type: 'npm',
      namespace: '@angular',
      name: 'core',
      version: '1.0.0',
    });
    expect(purl('pkg:golang/github.com/gin-gonic/gin@v1.9.0')).toMatchObject({
      namespace: 'github.com/gin-gonic',
      name: 'gin',
    });
    expect(purl('pkg:pypi/Django_Rest@3.0')).toMatchObject({ name: 'django-rest' });
    expect(purl('pkg:deb/debian/openssl')).toEqual({ type: 'deb', namespace: 'debian', name: 'openssl' });
  });

  it('says why a text is not one', () => {
    expect(parsePurl('maven/x')).toEqual({ ok: false, reason: 'a package URL starts with "pkg:".' });
    expect(parsePurl('pkg:npm')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('type and a name'),
    });
    expect(parsePurl('pkg:9x/phoenix@1.0')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('"9x" is not a package type'),
    });
    expect(parsePurl('pkg:maven/log4j-core@1')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('group'),
    });
    expect(parsePurl('pkg:npm/%E0%A4%A@1')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('percent-encoding'),
    });
  });
});

describe('purlCpeNames', () => {
  it('guesses NVD names of a Maven artifact: apache:log4j for log4j-core', () => {
    const names = purlCpeNames(purl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'));
    expect(names).toContainEqual({ vendor: 'apache', product: 'log4j' });
    expect(names.length).toBeLessThanOrEqual(24);
  });
  it('guesses <name>_project and the GitHub owner', () => {
    expect(purlCpeNames(purl('pkg:npm/lodash@4.17.20'))).toContainEqual({
      vendor: 'lodash',
      product: 'lodash',
    });
    expect(purlCpeNames(purl('pkg:npm/marked@4.0.0'))).toContainEqual({
      vendor: 'marked_project',
      product: 'marked',
    });
    expect(purlCpeNames(purl('pkg:github/tukaani-project/xz@5.6.1'))).toContainEqual({
      vendor: 'tukaani',
      product: 'xz',
    });
    expect(purlCpeNames(purl('pkg:deb/debian/openssl@1.0.1f'))).toContainEqual({
      vendor: 'openssl',
      product: 'openssl',
    });
  });
});

describe('purlPackageNames', () => {
  it('gives the names a CNA writes in packageName', () => {
    expect(purlPackageNames(purl('pkg:maven/org.apache.logging.log4j/log4j-core@2'))).toEqual([
      'log4j-core',
      'org.apache.logging.log4j:log4j-core',
      'org.apache.logging.log4j/log4j-core',
    ]);
    expect(purlPackageNames(purl('pkg:rpm/redhat/xz@5.6.0'))).toEqual(['xz']);
  });
});

describe('parsePurl: types without rules of their own', () => {
  it('reads pkg:generic and any other type, its name as a product (never refused for its type)', () => {
    expect(purl('pkg:generic/openssl@1.0.1f')).toEqual({
      type: 'generic',
      name: 'openssl',
      version: '1.0.1f',
    });
    expect(purlCpeNames(purl('pkg:generic/openssl@1.0.1f'))).toContainEqual({
      vendor: 'openssl',
      product: 'openssl',
    });
    expect(purl('pkg:hex/phoenix@1.7.0')).toEqual({ type: 'hex', name: 'phoenix', version: '1.7.0' });
    expect(purlCpeNames(purl('pkg:conan/openssl/openssl@3.0.0'))[0]).toEqual({
      vendor: 'openssl',
      product: 'openssl',
    });
  });
});

describe('purlCpeNames: Maven', () => {
  it('gives log4j-core the pair NVD names Log4j by (apache:log4j)', () => {
    expect(purlCpeNames(purl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'))).toContainEqual({
      vendor: 'apache',
      product: 'log4j',
    });
    expect(purlPackageNames(purl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'))).toContain(
      'org.apache.logging.log4j:log4j-core',
    );
  });
});

describe('registryPurlType', () => {
  it('names the ecosystem of a package registry, none for source hosts and portals', () => {
    expect(registryPurlType('https://repo.maven.apache.org/maven2')).toBe('maven');
    expect(registryPurlType('https://repo.maven.apache.org/maven2/')).toBe('maven');
    expect(registryPurlType('https://pypi.org/project/requests')).toBe('pypi');
    expect(registryPurlType('https://www.npmjs.com/package/left-pad')).toBe('npm');
    expect(registryPurlType('https://github.com/tukaani-project/xz')).toBeUndefined();
    expect(registryPurlType('https://access.redhat.com/downloads/content/package-browser/')).toBeUndefined();
    expect(registryPurlType('https://pypi.org.evil.example/x')).toBeUndefined();
  });
});
