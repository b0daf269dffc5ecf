/** The onboarding's pages: the frame with its three steps, step 1 (name) and step 2 (vendors and products). */
import { KeywordsField } from '../keywords-field.tsx';
import type { ComponentChildren } from 'preact';
import { Field, FormProblems } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { formatCount } from '../../kit/format.ts';
import { Csrf, Layout } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import type { KeyCounts } from '../../../services/catalog.service.ts';
import { orgPath } from '../../kit/paths.ts';
import type { OrgAccess } from '../../kit/access.ts';
import { AddCandidates, KeyButton, keyLabel, RecentCount } from '../../shared/subscribe.tsx';
import type { ProjectDraft } from './onboarding.form.ts';

const STEPS = [
  { path: 'new-project', label: 'Name' },
  { path: 'new-project/vendors', label: 'Vendors and products' },
  { path: 'new-project/alerts', label: 'Alerts and report' },
] as const;

/** The onboarding's frame: the steps (the current one marked) and the form's problems above the step. */
export function OnboardingPage({
  ctx,
  access,
  step,
  errors,
  fields = [],
  children,
}: {
  ctx: PageContext;
  access: OrgAccess;
  step: 0 | 1 | 2;
  errors?: FormErrors | undefined;
  fields?: string[];
  children: ComponentChildren;
}) {
  const org = access.membership.name;
  return (
    <Layout ctx={ctx} title={`New project · ${org}`} section="projects">
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href={orgPath(org, 'projects')}>{org} projects</a>
          </div>
          <h1>New project</h1>
        </div>
      </div>
      <ol class="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li aria-current={i === step ? 'step' : undefined} class={i < step ? 'done' : undefined}>
            <span class="step-number">{i + 1}</span> {s.label}
          </li>
        ))}
      </ol>
      <FormProblems errors={errors} fields={fields} />
      {children}
    </Layout>
  );
}

/** Step 1: the name and description of the project. */
export function NameStep({
  ctx,
  access,
  draft,
  errors,
}: {
  ctx: PageContext;
  access: OrgAccess;
  draft: Pick<ProjectDraft, 'name' | 'description'>;
  errors?: FormErrors | undefined;
}) {
  const org = access.membership.name;
  return (
    <OnboardingPage ctx={ctx} access={access} step={0} errors={errors} fields={['name', 'description']}>
      <section class="card">
        <h2>Name the project</h2>
        <p class="muted">
          A project follows a set of vendors and products: every CVE that names one of them enters its
          tracker, its alerts and its reports.
        </p>
        <form method="post" action={orgPath(org, 'new-project')} class="stacked">
          <Csrf ctx={ctx} />
          <Field
            name="name"
            label="Name"
            value={draft.name}
            required
            autofocus
            maxlength={100}
            errors={errors}
            hint="Letters, digits, spaces, _ . and -; it starts with a letter or digit. E.g. Payments platform."
          />
          <div class={errors?.description ? 'field has-error' : 'field'}>
            <label for="f-description">Description (optional)</label>
            <textarea
              id="f-description"
              name="description"
              rows={3}
              maxLength={2000}
              aria-invalid={errors?.description ? 'true' : undefined}
              aria-describedby={errors?.description ? 'f-description-error' : undefined}
            >
              {draft.description}
            </textarea>
            {errors?.description && (
              <div class="error" id="f-description-error">
                {errors.description.join(' ')}
              </div>
            )}
          </div>
          <div class="form-actions">
            <button type="submit" class="btn-primary">
              Next: vendors and products
            </button>
          </div>
        </form>
      </section>
    </OnboardingPage>
  );
}

/** Step 2: the candidate search with its results, and the vendors and products chosen so far. */
export function VendorsStep({
  ctx,
  access,
  draft,
  chosen,
  search,
  candidates,
  errors,
  typedKeywords,
}: {
  ctx: PageContext;
  access: OrgAccess;
  draft: ProjectDraft;
  chosen: KeyCounts[];
  search: string;
  candidates: KeyCounts[];
  errors?: FormErrors | undefined;
  typedKeywords?: string | undefined;
}) {
  const org = access.membership.name;
  const action = orgPath(org, 'new-project/vendors');
  const keywords = draft.keywords ?? [];
  const problems = errors?.keywords ?? [];
  return (
    <OnboardingPage ctx={ctx} access={access} step={1} errors={errors} fields={['add', 'keywords']}>
      <section class="card">
        <h2>What does {draft.name} use?</h2>
        <p class="muted">
          Add the vendors (all their products) and products whose CVEs the project follows. The counts say how
          many CVEs each has, and how many were published or changed in the last 30 days: what it would have
          brought to the project in a month.
        </p>
        <AddCandidates
          ctx={ctx}
          action={action}
          search={search}
          candidates={candidates}
          chosen={new Set(draft.subscriptions)}
          errors={errors}
        />
      </section>
      <section class="card">
        <h2>
          Chosen <span class="muted small">({formatCount(chosen.length)})</span>
        </h2>
        {chosen.length === 0 ? (
          <p class="muted">Nothing yet. A project may start without any and add them later.</p>
        ) : (
          <ChosenTable ctx={ctx} action={action} search={search} chosen={chosen} />
        )}
      </section>
      <section class="card" id="keywords" aria-labelledby="keywords-title">
        <h2 id="keywords-title">
          Keywords <span class="muted small">({formatCount(keywords.length)})</span>
        </h2>
        <p class="muted">
          For what the catalog has no vendor or product for yet: a keyword brings in every CVE that has it as
          a whole word, in any case, in an affected vendor or product name, the title or the description (
          <code>xz</code> matches “xz” and “xz-utils”, not “xzone”).
        </p>
        <form method="post" action={orgPath(org, 'new-project/keywords')} class="stacked">
          <Csrf ctx={ctx} />
          <KeywordsField keywords={keywords} typed={typedKeywords} problems={problems} />
          <div class="form-actions">
            <button type="submit">Save keywords</button>
          </div>
        </form>
        <div class="form-actions">
          <a href={orgPath(org, 'new-project')}>← Back</a>
          <a class="btn btn-primary" href={orgPath(org, 'new-project/alerts')}>
            Next: alerts and report
          </a>
        </div>
      </section>
    </OnboardingPage>
  );
}

function ChosenTable({
  ctx,
  action,
  search,
  chosen,
}: {
  ctx: PageContext;
  action: string;
  search: string;
  chosen: KeyCounts[];
}) {
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="visually-hidden">Chosen vendors and products</caption>
        <thead>
          <tr>
            <th scope="col">Vendor or product</th>
            <th scope="col" class="num">
              CVEs
            </th>
            <th scope="col" class="num">
              Last 30 days
            </th>
            <th scope="col">
              <span class="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {chosen.map((c) => (
            <tr>
              <td>{keyLabel(c)}</td>
              <td class="num">{formatCount(c.cveCount)}</td>
              <td class="num nowrap">
                <RecentCount n={c.recentCount} />
              </td>
              <td>
                <KeyButton ctx={ctx} action={action} search={search} intent="remove" k={c} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
