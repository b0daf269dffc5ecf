/** One execution of an automation: its window, each action's result with its details, the CVEs it matched. */
import type { AutomationView, ExecutionRow } from '../../../domain/automation.ts';
import { resultOutput, type ExecutionCve } from '../../../domain/automation-execution.ts';
import { vendorKeyLabel } from '../../../domain/cpe.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { Time } from '../../kit/fields.tsx';
import { projectPath } from '../../kit/paths.ts';
import { ProjectPage } from '../project-page.tsx';
import { ResultBadge, resultsOf } from './automation.view.tsx';
import { automationUrl, automationsUrl } from './labels.ts';

/** An execution's page. */
export function ExecutionPage({
  ctx,
  access,
  automation: a,
  execution: e,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  automation: AutomationView;
  execution: ExecutionRow;
  done: string | undefined;
}) {
  const cves = (e.cves ?? []) as ExecutionCve[];
  return (
    <ProjectPage ctx={ctx} access={access} tab="automations" title={`Execution of ${a.name}`} done={done}>
      <div class="crumbs">
        <a href={automationsUrl(access)}>Automations</a> /{' '}
        <a href={automationUrl(access, a.name)}>{a.name}</a>
      </div>
      <h2>
        Execution of <Time date={e.executed_at} style={ctx.dateStyle} />
      </h2>
      <p>
        Changes from <Time date={e.window_start} style={ctx.dateStyle} /> to{' '}
        <Time date={e.window_end} style={ctx.dateStyle} />: {e.matched_cves_count} CVE
        {e.matched_cves_count === 1 ? '' : 's'} matched.
        {e.report_id && (
          <>
            {' '}
            <a href={projectPath(access.membership.name, access.project.name, `reports/${e.report_id}`)}>
              Its report
            </a>
            .
          </>
        )}
      </p>
      <h3 class="ab-heading">Actions</h3>
      <div class="table-wrap">
        <table class="data ab-results">
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Result</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {resultsOf(e).map((r) => (
              <tr>
                <td>{resultOutput(r.action).label}</td>
                <td>
                  <ResultBadge status={r.status} />
                </td>
                <td class="small">
                  {Object.entries(r.details ?? {}).map(([k, v]) => (
                    <div>
                      <span class="muted">{k.replace(/_/g, ' ')}:</span>{' '}
                      {k === 'report' && typeof v === 'string' ? (
                        <a href={projectPath(access.membership.name, access.project.name, `reports/${v}`)}>
                          the report
                        </a>
                      ) : v === null ? (
                        '–'
                      ) : typeof v === 'object' ? (
                        JSON.stringify(v)
                      ) : (
                        String(v)
                      )}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 class="ab-heading">Matched CVEs</h3>
      {e.cves === null ? (
        <p class="muted">This execution predates the keeping of its CVEs.</p>
      ) : cves.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">CVE</th>
                <th scope="col">CVSS 3.1</th>
                <th scope="col">CVSS 4.0</th>
                <th scope="col">EPSS</th>
                <th scope="col">Matched</th>
              </tr>
            </thead>
            <tbody>
              {cves.map((c) => (
                <tr>
                  <td class="nowrap">
                    <a href={`/cves/${c.cve_id}`}>{c.cve_id}</a>
                    {c.kev && <span class="badge kev">KEV</span>}
                  </td>
                  <td>{c.cvss_31 ?? '–'}</td>
                  <td>{c.cvss_40 ?? '–'}</td>
                  <td>{c.epss ?? '–'}</td>
                  <td class="small">{c.matched_vendors_or_products.map(vendorKeyLabel).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </ProjectPage>
  );
}
