/** CVSS qualitative levels on CVSS v3.1 base scores (SPEC §5): the API's `cvss` filter. */
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
