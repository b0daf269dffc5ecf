/**
 * The one severity badge: a CVSS score coloured by its rating (`severityOf`, domain/cvss.ts), and the
 * labels of the `cvss` filter's levels.
 */
import { severityOf, type CvssLevel, type Severity } from '../../domain/cvss.ts';

const SEVERITY_NAMES: Record<Severity, string> = {
  none: 'None',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** The labels of the `cvss` filter's levels (chart bars and counts that link to the filtered list). */
export const CVSS_LEVEL_LABELS: Record<CvssLevel, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  empty: 'No CVSS 3.1 score',
};

/**
 * A score as a badge: `9.8 v3.1` in a list, `9.8 Critical · v3.1` where it is `named`; a dash
 * without a score.
 */
export function SeverityBadge({
  score,
  version,
  named = false,
  title,
}: {
  score: number | null;
  version?: string | undefined;
  named?: boolean;
  title?: string;
}) {
  if (score === null) return <span class="muted">–</span>;
  const level = severityOf(score);
  return (
    <span class={`badge sev-${level}`} title={title}>
      {score.toFixed(1)}
      {named ? ` ${SEVERITY_NAMES[level]}${version ? ` · v${version}` : ''}` : ''}
      {!named && version && (
        <>
          {' '}
          <span class="small">v{version}</span>
        </>
      )}
    </span>
  );
}
