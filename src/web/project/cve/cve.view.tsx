/**
 * The page of one CVE in a project: affected products and versions, description, triage, why it is in
 * the project, comments, summary, tags.
 */
import type { NvdConfiguration } from '../../../domain/cve.ts';
import type { ProjectMatch } from '../../../domain/project-match.ts';
import { TRIAGE_STATUSES } from '../../../domain/triage.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { FormProblems, SelectField, Time } from '../../kit/fields.tsx';
import { statusLabel } from '../../kit/format.ts';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import { projectPath } from '../../kit/paths.ts';
import { AffectedSection } from '../../shared/cve/affected.tsx';
import { Summary } from '../../shared/cve/summary.tsx';
import { MatchExplanation } from '../../shared/project-match-panel.tsx';
import { ProjectPage } from '../project-page.tsx';
import { Comments } from './comments.view.tsx';
import type { Cve, Forms, Triage } from './cve.model.ts';

/** The page's own path (its forms post below it). */
export const cvePagePath = (access: ProjectAccess, cveId: string) =>
  projectPath(access.membership.name, access.project.name, `cves/${cveId}`);

/** The triage form: status and assignee. */
function TriageForm({
  ctx,
  action,
  triage,
  form,
  errors,
}: {
  ctx: PageContext;
  action: string;
  triage: Triage;
  form: Forms['triage'];
  errors: FormErrors | undefined;
}) {
  const { tracker } = triage.tracked;
  const status = form?.status ?? tracker.status ?? '';
  const assignee = form?.assignee ?? tracker.assignee ?? '';
  const known = triage.members.some((m) => m.email === assignee);
  return (
    <section class="card" id="triage" aria-labelledby="triage-title">
      <h2 id="triage-title">Triage</h2>
      <FormProblems errors={errors} fields={['status', 'assignee']} />
      <form method="post" action={`${action}/triage`} class="stacked triage-form">
        <Csrf ctx={ctx} />
        <SelectField
          name="status"
          label="Status"
          value={status}
          options={[
            { value: '', label: 'No status' },
            ...TRIAGE_STATUSES.map((s) => ({ value: s, label: statusLabel(s) })),
          ]}
          errors={errors}
        />
        <SelectField
          name="assignee"
          label="Assignee"
          value={assignee}
          options={[
            { value: '', label: 'Nobody' },
            ...(assignee && !known ? [{ value: assignee, label: assignee }] : []),
            ...triage.members.map((m) => ({
              value: m.email,
              label: m.username ? `${m.username} (${m.email})` : m.email,
            })),
          ]}
          errors={errors}
        />
        <button type="submit" class="btn-primary">
          Save triage
        </button>
      </form>
      {tracker.updated_at && (
        <p class="muted small">
          Last changed <Time date={tracker.updated_at} style={ctx.dateStyle} />
          {tracker.assigned_at && (
            <>
              ; assigned <Time date={tracker.assigned_at} style={ctx.dateStyle} />
            </>
          )}
          .
        </p>
      )}
    </section>
  );
}

/** The user's own tags on the CVE. */
function TagsForm({
  ctx,
  action,
  tags,
  value,
  errors,
}: {
  ctx: PageContext;
  action: string;
  tags: string[];
  value: string | undefined;
  errors: FormErrors | undefined;
}) {
  const fieldErrors = errors?.tags ?? [];
  return (
    <section class="card" id="tags" aria-labelledby="tags-title">
      <h2 id="tags-title">Your tags</h2>
      <p class="muted small">Only you see your tags; they follow the CVE in every project and list.</p>
      {tags.length > 0 && (
        <p>
          {tags.map((t) => (
            <span class="chip">{t}</span>
          ))}
        </p>
      )}
      <form method="post" action={`${action}/tags`} class="stacked">
        <Csrf ctx={ctx} />
        <div class={fieldErrors.length ? 'field has-error' : 'field'}>
          <label for="f-tags">Tags</label>
          <input
            id="f-tags"
            name="tags"
            type="text"
            value={value ?? tags.join(' ')}
            maxLength={2000}
            aria-describedby={fieldErrors.length ? 'f-tags-hint f-tags-error' : 'f-tags-hint'}
            aria-invalid={fieldErrors.length ? 'true' : undefined}
          />
          <div class="hint" id="f-tags-hint">
            Separated by spaces or commas: letters, digits, _ . - (e.g. <code>patched-2025 needs.vendor</code>
            ). Empty removes them all.
          </div>
          {fieldErrors.length > 0 && (
            <div class="error" id="f-tags-error">
              {fieldErrors.join(' ')}
            </div>
          )}
        </div>
        <button type="submit">Save tags</button>
      </form>
    </section>
  );
}

/** The whole page; `triage` undefined for a catalog CVE that is not in the project. */
export function ProjectCvePage({
  ctx,
  access,
  cve,
  match,
  triage,
  done,
  forms = {},
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  cve: Cve;
  match: ProjectMatch;
  triage: Triage | undefined;
  done: string | undefined;
  forms?: Forms;
  errors?: FormErrors | undefined;
}) {
  const action = cvePagePath(access, cve.cve_id);
  const catalogUrl = `/cves/${cve.cve_id}`;
  return (
    <ProjectPage ctx={ctx} access={access} tab="tracker" title={cve.cve_id} done={done}>
      <div class="page-head project-cve-head">
        <div>
          <h2 class="project-cve-id">
            {cve.cve_id}
            {cve.kev && <span class="badge kev">Known exploited</span>}
            {!match.inProject && <span class="badge neutral">not in this project</span>}
          </h2>
          {cve.title && <p class="cve-title">{cve.title}</p>}
        </div>
        <div class="head-actions">
          <a href={catalogUrl}>Full catalog page</a>
        </div>
      </div>
      {cve.state === 'REJECTED' && (
        <div class="banner-rejected" role="note">
          REJECTED: this CVE id was rejected by its CNA and should not be used.
        </div>
      )}
      <div class="two-col project-cve">
        <div class="stack">
          <AffectedSection
            affected={cve.affected}
            configurations={(cve.nvd_configurations ?? []) as NvdConfiguration[]}
            foldConfigurations
          />
          <section id="description" aria-labelledby="description-title">
            <h2 id="description-title">Description</h2>
            {cve.description ? (
              <p class="cve-description" lang="en">
                {cve.description}
              </p>
            ) : (
              <p class="muted">No description yet.</p>
            )}
          </section>
          {triage && (
            <TriageForm ctx={ctx} action={action} triage={triage} form={forms.triage} errors={errors} />
          )}
          <MatchExplanation ctx={ctx} match={match} catalogUrl={catalogUrl} />
          {triage && <Comments ctx={ctx} action={action} triage={triage} forms={forms} errors={errors} />}
        </div>
        <div class="stack">
          <Summary cve={cve} ctx={ctx} />
          {triage && (
            <TagsForm ctx={ctx} action={action} tags={triage.tags} value={forms.tags} errors={errors} />
          )}
        </div>
      </div>
    </ProjectPage>
  );
}
