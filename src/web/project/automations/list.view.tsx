/** The project's automations: a table with what runs each, whether it is enabled and its last execution. */
import type { AutomationWithLatest } from '../../../domain/automation.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { Time } from '../../kit/fields.tsx';
import { ProjectPage } from '../project-page.tsx';
import { DeleteForm, EnableForm, ResultBadge, describeSchedule, resultsOf } from './automation.view.tsx';
import { automationUrl, automationsUrl } from './labels.ts';
import { TEMPLATE_HINTS, TEMPLATES, type TemplateKey } from './templates.ts';

/** The list page (the templates to start from when there is none yet, for owners). */
export function AutomationsList({
  ctx,
  access,
  items,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  items: AutomationWithLatest[];
  done: string | undefined;
}) {
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="automations"
      title="Automations"
      done={done}
      actions={
        access.isOwner && (
          <a class="btn btn-primary" href={`${automationsUrl(access)}/new`}>
            New automation
          </a>
        )
      }
    >
      {items.length === 0 ? (
        <div class="card">
          <p>
            No automation yet. An automation notifies, assigns, sets a status or makes a report when CVEs of
            this project change, or on a schedule.
          </p>
          {access.isOwner && (
            <ul>
              {(Object.keys(TEMPLATES) as TemplateKey[]).map((k) => (
                <li>
                  <a href={`${automationsUrl(access)}/new?template=${k}`}>{TEMPLATES[k]}</a>:{' '}
                  {TEMPLATE_HINTS[k]}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">Automations of {access.project.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Runs</th>
                <th scope="col">Enabled</th>
                <th scope="col">Last execution</th>
                {access.isOwner && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {items.map((a) => {
                const e = a.latest_execution;
                return (
                  <tr>
                    <td>
                      <a href={automationUrl(access, a.name)}>{a.name}</a>
                    </td>
                    <td class="small">{describeSchedule(a)}</td>
                    <td>
                      {a.is_enabled ? (
                        <span class="badge ok">enabled</span>
                      ) : (
                        <span class="badge neutral">disabled</span>
                      )}
                    </td>
                    <td>
                      {e ? (
                        <>
                          <a href={automationUrl(access, a.name, `executions/${e.id}`)}>
                            <Time date={e.executed_at} style={ctx.dateStyle} />
                          </a>
                          <div class="small">
                            {e.matched_cves_count} CVE{e.matched_cves_count === 1 ? '' : 's'}{' '}
                            {resultsOf(e).map((r) => (
                              <ResultBadge status={r.status} />
                            ))}
                          </div>
                        </>
                      ) : (
                        <span class="muted">never</span>
                      )}
                    </td>
                    {access.isOwner && (
                      <td class="nowrap">
                        <a class="btn btn-small" href={automationUrl(access, a.name, 'edit')}>
                          Edit
                        </a>{' '}
                        <EnableForm ctx={ctx} access={access} automation={a} />{' '}
                        <DeleteForm ctx={ctx} access={access} automation={a} />
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </ProjectPage>
  );
}
