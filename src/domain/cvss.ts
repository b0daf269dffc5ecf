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
