/** A CVE's CVSS vectors: every distinct one the providers state, each broken into named metrics. */
import { cvssVersionOfKey, parseCvssVector } from '../../../domain/cvss-vector.ts';
import { CVSS_METRICS } from '../../../domain/cve.ts';
import { SeverityBadge } from '../../kit/severity.tsx';
import { asCvss, METRIC_LABELS, providerName, type CvssData } from './labels.tsx';

/** One CVSS vector stated by one or more providers. */
interface VectorStatement {
  key: string;
  vector: string;
  score: number;
  providers: string[];
}

/**
 * Every distinct CVSS vector the providers state, by version (newest first), with who states it;
 * the merged view's own vector (the one the catalog uses) first within its version.
 */
export function vectorStatements(
  merged: Record<string, unknown>,
  sources: { provider: string; metrics: Record<string, unknown> }[],
): VectorStatement[] {
  const out: VectorStatement[] = [];
  for (const key of [...CVSS_METRICS].reverse()) {
    const view = merged[key] as { data?: unknown; provider?: string | null } | undefined;
    const mine = asCvss(view?.data);
    const found: VectorStatement[] = [];
    const add = (data: CvssData, provider: string) => {
      const same = found.find((f) => f.vector === data.vector && f.score === data.score);
      if (same) {
        if (!same.providers.includes(provider)) same.providers.push(provider);
      } else found.push({ key, vector: data.vector, score: data.score, providers: [provider] });
    };
    if (mine) add(mine, view?.provider ?? 'unknown');
    for (const s of sources) {
      const data = asCvss(s.metrics[key]);
      if (data) add(data, s.provider);
    }
    out.push(...found);
  }
  return out;
}

/** One CVSS vector: its version, severity, who states it, and its metrics by group. */
export function CvssBreakdown({ statement, idPrefix }: { statement: VectorStatement; idPrefix: string }) {
  const version = cvssVersionOfKey(statement.key);
  const parsed = parseCvssVector(statement.vector, version);
  const groups = parsed ? [...new Set(parsed.metrics.map((m) => m.group))] : [];
  return (
    <div class="card cvss-vector" id={idPrefix}>
      <h3>
        {METRIC_LABELS[statement.key] ?? statement.key} <SeverityBadge score={statement.score} named />
      </h3>
      <p class="small">
        <code>{statement.vector}</code>
        <span class="muted"> · stated by {statement.providers.map(providerName).join(', ')}</span>
      </p>
      {parsed ? (
        groups.map((group) => (
          <table class="kv cvss-metrics">
            {groups.length > 1 && (
              <caption class="muted small">{group[0]!.toUpperCase() + group.slice(1)} metrics</caption>
            )}
            <tbody>
              {parsed.metrics
                .filter((m) => m.group === group)
                .map((m) => (
                  <tr>
                    <th scope="row">
                      {m.name} <span class="muted small">({m.key})</span>
                    </th>
                    <td>
                      {m.valueName}
                      {!m.known && (
                        <span class="muted small"> (not in the CVSS {parsed.version} specification)</span>
                      )}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        ))
      ) : (
        <p class="muted small">This vector could not be read.</p>
      )}
    </div>
  );
}
