import { describe, expect, it } from 'vitest';
import { compareVersions, withinBounds } from './version-range.ts';

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
