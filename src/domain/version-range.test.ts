import { describe, expect, it } from 'vitest';
import { compareVersions, SchemeComparer, schemeOf, withinBounds } from './version-range.ts';

describe('compareVersions', () => {
  it.each([
    ['1.0.1f', '1.0.1g', -1],
    ['1.0.1f', '1.0.1', 1],
    ['1.0.1', '1.0.1a', -1],
    ['1.0.2', '1.0.1g', 1],
    ['2.0-beta9', '2.0', -1],
    ['2.0-beta9', '2.0-rc1', -1],
    ['2.0-beta9', '2.0.1', -1],
    ['2.14.1', '2.15.0', -1],
    ['2.17.1', '2.15.0', 1],
    ['2.3.1', '2.4', -1],
    ['1.0', '1.0.0', 0],
    ['v1.2.3', '1.2.3', 0],
    ['1:2.3', '2.3', 0],
    ['1.0.0-rc.1', '1.0.0', -1],
    ['1.0a1', '1.0', -1],
    ['1.0a1', '1.0b1', -1],
    ['9.6p1', '9.6', 1],
    ['1.0.Final', '1.0', 0],
    ['2.0.0-M1', '2.0.0', -1],
    ['1.2.3~rc1', '1.2.3', -1],
    ['10.0', '9.99', 1],
    ['5.6.1', '5.6.0', 1],
    ['5.4.6', '5.6.0', -1],
    ['12345678901234567890.1', '12345678901234567890.0', 1],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
    expect(compareVersions(b, a)).toBe(-expected || 0);
  });
});

describe('withinBounds', () => {
  it('applies each bound given (Heartbleed: 1.0.1 ≤ v < 1.0.1g)', () => {
    const b = { startIncluding: '1.0.1', endExcluding: '1.0.1g' };
    expect(withinBounds('1.0.1', b)).toBe(true);
    expect(withinBounds('1.0.1f', b)).toBe(true);
    expect(withinBounds('1.0.1g', b)).toBe(false);
    expect(withinBounds('1.0.0', b)).toBe(false);
  });
  it('treats a missing bound as open, and including/excluding ends as written', () => {
    expect(withinBounds('0.1', {})).toBe(true);
    expect(withinBounds('2.0', { endIncluding: '2.0' })).toBe(true);
    expect(withinBounds('2.0', { startExcluding: '2.0' })).toBe(false);
  });
});

describe('SchemeComparer', () => {
  const compare = (scheme: Parameters<typeof schemeOf>[0], a: string, b: string) => {
    const c = new SchemeComparer(schemeOf(scheme));
    return { order: c.compare(a, b), used: c.used };
  };

  it('reads versionType names into schemes', () => {
    expect(
      ['semver', 'npm', 'python', 'PyPI', 'debian', 'deb', 'rpm', 'maven', 'custom', undefined].map(schemeOf),
    ).toEqual([
      'semver',
      'semver',
      'pep440',
      'pep440',
      'debian',
      'debian',
      'rpm',
      'generic',
      'generic',
      'generic',
    ]);
  });

  it('semver: pre-releases by their identifiers, short versions padded', () => {
    expect(compare('semver', '1.0.0-alpha.10', '1.0.0-alpha.9')).toEqual({ order: 1, used: 'semver' });
    expect(compare('semver', '1.0.0-rc.1', '1.0.0')).toEqual({ order: -1, used: 'semver' });
    expect(compare('semver', '2.0', '2.0.0')).toEqual({ order: 0, used: 'semver' });
    expect(compare('npm', 'v1.2.3', '1.2.4')).toEqual({ order: -1, used: 'semver' });
    expect(compare('semver', '9.4.53.v20231009', '10.0.0')).toEqual({ order: -1, used: 'generic' });
  });

  it('pep440: 1.0.post1 after 1.0, 1.0rc1 before, dev before alpha', () => {
    expect(compare('python', '1.0.post1', '1.0')).toEqual({ order: 1, used: 'pep440' });
    expect(compare('python', '1.0rc1', '1.0')).toEqual({ order: -1, used: 'pep440' });
    expect(compare('pypi', '1.0.dev1', '1.0a1')).toEqual({ order: -1, used: 'pep440' });
    expect(compare('python', 'not a version', '1.0')).toMatchObject({ used: 'generic' });
  });

  it('debian and rpm: epoch first, then upstream, then revision (1:2.0-1 after 2.0; 2.0-1 before 2.0.1)', () => {
    expect(compare('debian', '1:2.0-1', '2.0')).toEqual({ order: 1, used: 'debian' });
    expect(compare('debian', '1:1.0', '2.0')).toEqual({ order: 1, used: 'debian' });
    expect(compare('debian', '2.0-1', '2.0.1')).toEqual({ order: -1, used: 'debian' });
    expect(compare('debian', '2.0-1', '2.0-2')).toEqual({ order: -1, used: 'debian' });
    expect(compare('debian', '1.2.3~rc1-1', '1.2.3-1')).toEqual({ order: -1, used: 'debian' });
    expect(compare('rpm', '2:1.0-1.el9', '1:9.0-1.el9')).toEqual({ order: 1, used: 'rpm' });
  });

  it('generic: the comparator above, epochs dropped (NVD bounds carry none)', () => {
    expect(compare('maven', '1:2.0-1', '2.0')).toEqual({ order: 1, used: 'generic' });
    expect(compare(undefined, '1.0.1f', '1.0.1g')).toEqual({ order: -1, used: 'generic' });
  });
});
