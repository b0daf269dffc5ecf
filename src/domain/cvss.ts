/** CVSS qualitative levels on CVSS v3.1 base scores (docs/api-v2.md): the API's `cvss` filter. */
export const CVSS_LEVELS = ['empty', 'low', 'medium', 'high', 'critical'] as const;
export type CvssLevel = (typeof CVSS_LEVELS)[number];

/** Score range [min, max) of a level; `empty` is "no CVSS v3.1 score". */
export const CVSS_RANGES: Record<Exclude<CvssLevel, 'empty'>, [number, number]> = {
  low: [0, 4],
  medium: [4, 7],
  high: [7, 9],
  critical: [9, 10.01],
};

/** The qualitative rating of a CVSS score (CVSS v3.1 and v4.0 specifications); `none` without a score. */
export type Severity = 'none' | 'low' | 'medium' | 'high' | 'critical';

/**
 * The one rule from a score to its rating, as the CVSS specification gives it: None 0.0, Low 0.1–3.9,
 * Medium 4.0–6.9, High 7.0–8.9, Critical 9.0–10.0; `none` without a score. Every badge, CSV column,
 * report count and message draws a level with it.
 */
export function severityOf(score: number | null): Severity {
  if (score === null || score <= 0) return 'none';
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

/**
 * The API's `cvss` filter value that finds a CVSS v3.1 score (`empty` without one). The filter's
 * ranges are the specification's, except that its `low` also holds 0.0, since the filter has no
 * `none`: a chart bar that links to the filtered list counts what that list shows.
 */
export function cvssFilterLevelOf(score: number | null): CvssLevel {
  if (score === null) return 'empty';
  const level = severityOf(score);
  return level === 'none' ? 'low' : level;
}

/**
 * API v1's legacy `cvss` levels (OpenCVE 1.x) on the CVSS v3 base score (v3.1, else v3.0): `none` is
 * "no v3 score"; low 0.1–3.9, medium 4–6.9, high 7–8.9, critical 9–10 (a 0.0 score is in none).
 */
export const LEGACY_CVSS_LEVELS = ['none', 'low', 'medium', 'high', 'critical'] as const;
export type LegacyCvssLevel = (typeof LEGACY_CVSS_LEVELS)[number];

export const LEGACY_CVSS_RANGES: Record<Exclude<LegacyCvssLevel, 'none'>, [number, number]> = {
  low: [0.1, 4],
  medium: [4, 7],
  high: [7, 9],
  critical: [9, 10.01],
};
