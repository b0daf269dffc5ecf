import { describe, expect, it } from 'vitest';
import { cvssFilterLevelOf, severityOf } from './cvss.ts';

describe('severityOf', () => {
  it('rates a score as the CVSS specification does: 0.0 is none', () => {
    expect([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(severityOf)).toEqual([
      'none',
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
      'critical',
    ]);
  });

  it('rates no score as none', () => {
    expect(severityOf(null)).toBe('none');
  });
});

describe('cvssFilterLevelOf', () => {
  it('names the `cvss` filter value that finds a score: 0.0 under low, no score under empty', () => {
    expect([null, 0, 0.1, 4, 7, 9.8].map(cvssFilterLevelOf)).toEqual([
      'empty',
      'low',
      'low',
      'medium',
      'high',
      'critical',
    ]);
  });
});
