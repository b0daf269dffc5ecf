/** A CVE's summary box: best CVSS, EPSS, KEV, SSVC, threat severity, published and updated. */
import { cvssVersionOfKey } from '../../../domain/cvss-vector.ts';
import { CVSS_METRICS } from '../../../domain/cve.ts';
import type { CvePage } from '../../../services/catalog.service.ts';
import { Time } from '../../kit/fields.tsx';
import type { PageContext } from '../../kit/context.ts';
import { SeverityBadge } from '../../kit/severity.tsx';
import { asCvss, providerName } from './labels.tsx';

/** A date from upstream text: shown as a date when it is one, else as written. */
function UpstreamDate({ value, ctx }: { value: unknown; ctx: PageContext }) {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    return <span>{value ? String(value) : '–'}</span>;
  return <Time date={value} style={ctx.dateStyle} withTime={false} />;
}

const percent = (n: number, digits: number) => `${(n * 100).toFixed(digits)} %`;

/** The summary box of a CVE: best CVSS, EPSS, KEV, SSVC, threat severity, published and updated. */
export function Summary({
  cve,
  ctx,
}: {
  cve: Pick<CvePage['cve'], 'metrics' | 'kev' | 'created_at' | 'updated_at'>;
  ctx: PageContext;
}) {
  const metrics = cve.metrics as Record<string, { data?: unknown; provider?: string | null } | undefined>;
  const best = [...CVSS_METRICS].reverse().find((key) => asCvss(metrics[key]?.data));
  const bestData = best ? asCvss(metrics[best]?.data) : undefined;
  const epss = metrics.epss?.data as { score?: unknown; percentile?: unknown } | undefined;
  const kev = metrics.kev?.data as Record<string, unknown> | undefined;
  const inKev = cve.kev || (kev !== undefined && Object.keys(kev).length > 0);
  const ssvc = metrics.ssvc?.data as { options?: Record<string, unknown>; version?: unknown } | undefined;
  const threat = metrics.threat_severity?.data;
  return (
    <aside class="card cve-summary" id="summary" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <table class="kv">
        <tbody>
          <tr>
            <th scope="row">Best CVSS</th>
            <td>
              {best && bestData ? (
                <>
                  <SeverityBadge score={bestData.score} version={cvssVersionOfKey(best)} named />
                  <div class="muted small">by {providerName(metrics[best]?.provider)}</div>
                </>
              ) : (
                <span class="muted">no CVSS score</span>
              )}
            </td>
          </tr>
          <tr>
            <th scope="row">EPSS</th>
            <td>
              {epss && typeof epss.score === 'number' ? (
                <>
                  <span class="epss-score">{percent(epss.score, 2)}</span>
                  {typeof epss.percentile === 'number' && (
                    <div class="muted small">percentile {percent(epss.percentile, 2)}</div>
                  )}
                </>
              ) : (
                <span class="muted">no score</span>
              )}
            </td>
          </tr>
          <tr>
            <th scope="row">KEV</th>
            <td>
              {inKev ? (
                <>
                  <span class="badge kev">Known exploited</span>
                  <dl class="kev-dates small">
                    <dt>Added</dt>
                    <dd>
                      <UpstreamDate value={kev?.dateAdded} ctx={ctx} />
                    </dd>
                    <dt>Due date</dt>
                    <dd>
                      <UpstreamDate value={kev?.dueDate} ctx={ctx} />
                    </dd>
                    {typeof kev?.knownRansomwareCampaignUse === 'string' && (
                      <>
                        <dt>Ransomware use</dt>
                        <dd>{kev.knownRansomwareCampaignUse}</dd>
                      </>
                    )}
                  </dl>
                  {typeof kev?.requiredAction === 'string' && (
                    <details class="small">
                      <summary>Required action</summary>
                      <p>{kev.requiredAction}</p>
                    </details>
                  )}
                </>
              ) : (
                <span class="muted">not in CISA's KEV catalog</span>
              )}
            </td>
          </tr>
          {ssvc?.options && Object.keys(ssvc.options).length > 0 && (
            <tr>
              <th scope="row">SSVC{ssvc.version ? ` ${String(ssvc.version)}` : ''}</th>
              <td>
                <dl class="ssvc small">
                  {Object.entries(ssvc.options).map(([k, v]) => (
                    <>
                      <dt>{k}</dt>
                      <dd>{String(v)}</dd>
                    </>
                  ))}
                </dl>
              </td>
            </tr>
          )}
          {typeof threat === 'string' && threat && (
            <tr>
              <th scope="row">Threat severity</th>
              <td>{threat}</td>
            </tr>
          )}
          <tr>
            <th scope="row">Published</th>
            <td>
              <Time date={cve.created_at} style={ctx.dateStyle} />
            </td>
          </tr>
          <tr>
            <th scope="row">Updated</th>
            <td>
              <Time date={cve.updated_at} style={ctx.dateStyle} />
            </td>
          </tr>
        </tbody>
      </table>
    </aside>
  );
}
