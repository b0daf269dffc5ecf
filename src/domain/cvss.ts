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

/** The level of a CVSS v3.1 base score on the ranges above (the `cvss` filter's); null without a score. */
export function cvssLevelOf(score: number | null): Exclude<CvssLevel, 'empty'> | null {
  if (score === null) return null;
  for (const [level, [min, max]] of Object.entries(CVSS_RANGES))
    if (score >= min && score < max) return level as Exclude<CvssLevel, 'empty'>;
  return null;
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
