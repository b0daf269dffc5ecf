import { describe, expect, it } from 'vitest';
import {
  conditionsCount,
  impactSummary,
  resultId,
  weekdayNumber,
  type ExecutionCve,
} from './automation-execution.ts';

const row = (over: Partial<ExecutionCve>): ExecutionCve => ({
  cve_id: 'CVE-2024-0001',
  kev: false,
  epss: null,
  cvss_20: null,
  cvss_30: null,
  cvss_31: null,
  cvss_40: null,
  matched_vendors_or_products: [],
  ...over,
});

describe('impactSummary', () => {
  it("summarises a run's CVEs on each one's highest CVSS of any version", () => {
    const summary = impactSummary([
      row({
        cve_id: 'A',
        cvss_31: 5.3,
        cvss_40: 6.3,
        epss: 0.00042,
        matched_vendors_or_products: ['python'],
      }),
      row({ cve_id: 'B', cvss_31: 9.8, kev: true, epss: 0.6, matched_vendors_or_products: ['python', 'xz'] }),
      row({ cve_id: 'C', epss: 0.2 }),
    ]);
    expect(summary).toEqual({
      cves_count: 3,
      kev_count: 1,
      kev_percent: 33,
      epss_avg: 0.26681,
      epss_max: 0.6,
      average_cvss: 8.1,
      highest_cvss: 9.8,
      highest_cvss_version: 'cvss_31',
      cvss_distribution: { Low: 0, Medium: 1, High: 0, Critical: 1 },
      epss_distribution: { low: 1, medium: 1, high: 1 },
      top_vendors_products: [
        { name: 'python', count: 2 },
        { name: 'xz', count: 1 },
      ],
    });
  });

  it('is all zeros and nulls for a run without CVEs', () => {
    expect(impactSummary([])).toMatchObject({
      cves_count: 0,
      kev_percent: 0,
      epss_avg: 0,
      average_cvss: null,
      highest_cvss_version: null,
      top_vendors_products: [],
    });
  });
});

describe('resultId', () => {
  it('derives a stable version-5-layout UUID per execution and index', () => {
    const id = resultId('f0118a9e-f336-432f-8f83-b8cf6381d839', 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(resultId('f0118a9e-f336-432f-8f83-b8cf6381d839', 0)).toBe(id);
    expect(resultId('f0118a9e-f336-432f-8f83-b8cf6381d839', 1)).not.toBe(id);
  });
});

describe('conditionsCount and weekdayNumber', () => {
  it('counts the leaves of a condition tree, at any depth', () => {
    expect(conditionsCount({ operator: 'AND', children: [] })).toBe(0);
    expect(
      conditionsCount({
        operator: 'OR',
        children: [
          { operator: 'AND', children: [{ type: 'kev_present', value: true }] },
          { type: 'cvss_gte' },
        ],
      }),
    ).toBe(2);
  });

  it('reads a weekday by name or number (0 Sunday)', () => {
    expect(weekdayNumber('monday')).toBe(1);
    expect(weekdayNumber('sunday')).toBe(0);
    expect(weekdayNumber(5)).toBe(5);
  });
});
