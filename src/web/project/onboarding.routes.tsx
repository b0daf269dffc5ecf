/**
 * The onboarding (owners): a project in three steps, `/org/<org>/new-project` (not under
 * `/projects/`, where a project may have any name).
 *
 * 1. `/new-project`: name and description, checked by ProjectService's rules (and the name not taken).
 * 2. `/new-project/vendors`: vendors and products, searched as you type (htmx swaps the candidates;
 *    the same URL with `?search=` is the whole page without JavaScript), each with its CVE count and
 *    those of the last 30 days, a warning on noisy ones.
 * 3. `/new-project/alerts`: optionally an email or webhook alert for new critical or KEV CVEs, and a
 *    weekly report; "Create project" makes everything at once (OnboardingService: nothing is left
 *    half made on an error) and goes to the project's dashboard.
 *
 * The draft lives in the session between steps (one draft, for one organization), so a step can be
 * left and come back to without losing what was typed; it goes once the project is created.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { AppError, validationError } from '../../domain/errors.ts';
import { Field, FormProblems } from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, field } from '../kit/input.ts';
import { formatCount } from '../kit/format.ts';
import { Csrf, isHtmx, Layout, sendFragment, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions, WebServices } from '../kit/context.ts';
import type { KeyCounts } from '../../services/catalog.service.ts';
import { orgPath, projectPath } from '../kit/paths.ts';
import { ownerAccess, type OrgAccess } from '../kit/access.ts';
import { CandidateRows, CandidateSearch, keyLabel, RecentCount } from '../shared/subscribe.tsx';

/** What the steps collected so far. */
interface ProjectDraft {
  org: string;
  name: string;
  description: string;
  subscriptions: string[];
  alertType: '' | 'email' | 'webhook';
  alertTarget: string;
  weeklyReport: boolean;
}

declare module 'fastify' {
  interface Session {
    /** The onboarding's draft (one at a time). */
    projectDraft?: ProjectDraft;
  }
}

/** A draft holds at most this many vendors and products (more can be added on the project's page). */
const DRAFT_MAX_SUBSCRIPTIONS = 200;

const STEPS = [
  { path: 'new-project', label: 'Name' },
  { path: 'new-project/vendors', label: 'Vendors and products' },
  { path: 'new-project/alerts', label: 'Alerts and report' },
] as const;

function draftOf(request: FastifyRequest, org: string): ProjectDraft {
  const draft = request.session.projectDraft;
  if (draft?.org === org) return draft;
  return {
    org,
    name: '',
    description: '',
    subscriptions: [],
    alertType: '',
    alertTarget: '',
    weeklyReport: true,
  };
}

function OnboardingPage({
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

function NameStep({
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

function VendorsStep({
  ctx,
  access,
  draft,
  chosen,
  search,
  candidates,
  errors,
}: {
  ctx: PageContext;
  access: OrgAccess;
  draft: ProjectDraft;
  chosen: KeyCounts[];
  search: string;
  candidates: KeyCounts[];
  errors?: FormErrors | undefined;
}) {
  const org = access.membership.name;
  const action = orgPath(org, 'new-project/vendors');
  return (
    <OnboardingPage ctx={ctx} access={access} step={1} errors={errors} fields={['add']}>
      <section class="card">
        <h2>What does {draft.name} use?</h2>
        <p class="muted">
          Add the vendors (all their products) and products whose CVEs the project follows. The counts say how
          many CVEs each has, and how many were published or changed in the last 30 days: what it would have
          brought to the project in a month.
        </p>
        <CandidateSearch action={action} value={search} target="candidates" />
        {errors?.add && (
          <div class="field has-error">
            <div class="error" id="f-add-error">
              {errors.add.join(' ')}
            </div>
          </div>
        )}
        <CandidateRows
          ctx={ctx}
          id="candidates"
          search={search}
          candidates={candidates}
          chosen={new Set(draft.subscriptions)}
          addAction={action}
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
                <form method="post" action={action} class="inline-form">
                  <Csrf ctx={ctx} />
                  <input type="hidden" name="search" value={search} />
                  <button type="submit" name="remove" value={c.key} class="btn-small">
                    Remove <span class="visually-hidden">{keyLabel(c)}</span>
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AlertsStep({
  ctx,
  access,
  draft,
  errors,
}: {
  ctx: PageContext;
  access: OrgAccess;
  draft: ProjectDraft;
  errors?: FormErrors | undefined;
}) {
  const org = access.membership.name;
  const targetErrors = errors?.alert_target ?? [];
  const typeErrors = errors?.alert ?? [];
  return (
    <OnboardingPage ctx={ctx} access={access} step={2} errors={errors} fields={['alert', 'alert_target']}>
      {(errors?.name || errors?.description) && (
        <p>
          <a href={orgPath(org, 'new-project')}>Change the name or description (step 1)</a>
        </p>
      )}
      {(errors?.vendors || errors?.products || errors?.subscriptions) && (
        <p>
          <a href={orgPath(org, 'new-project/vendors')}>Change the vendors and products (step 2)</a>
        </p>
      )}
      <form method="post" action={orgPath(org, 'new-project/alerts')} class="stacked">
        <Csrf ctx={ctx} />
        <section class="card">
          <h2>Alert on new critical or KEV CVEs (optional)</h2>
          <p class="muted">
            When a CVE enters the project with a CVSS score of 9 or more (3.1 or 4.0), or listed by CISA as
            exploited (KEV), vulntrack sends it here. You can change it later under the project's
            Notifications and Automations.
          </p>
          <fieldset class={typeErrors.length ? 'has-error' : undefined}>
            <legend>Send alerts by</legend>
            <div class="checks">
              {(
                [
                  ['', 'No alert'],
                  ['email', 'Email'],
                  ['webhook', 'Webhook'],
                ] as const
              ).map(([value, label]) => (
                <label>
                  <input type="radio" name="alert" value={value} checked={draft.alertType === value} />{' '}
                  {label}
                </label>
              ))}
            </div>
            {typeErrors.length > 0 && <div class="error">{typeErrors.join(' ')}</div>}
          </fieldset>
          <div class={targetErrors.length ? 'field has-error' : 'field'}>
            <label for="f-alert_target">Email address or webhook URL</label>
            <input
              id="f-alert_target"
              name="alert_target"
              type="text"
              value={draft.alertTarget}
              maxLength={2000}
              autocomplete="off"
              placeholder="security@example.com or https://hooks.example.com/vulntrack"
              aria-invalid={targetErrors.length ? 'true' : undefined}
              aria-describedby={`f-alert_target-hint${targetErrors.length ? ' f-alert_target-error' : ''}`}
            />
            <div class="hint" id="f-alert_target-hint">
              An address outside {org} gets an email to confirm it first. A webhook receives signed JSON
              (Standard Webhooks); its signing secret is on the notification's page.
            </div>
            {targetErrors.length > 0 && (
              <div class="error" id="f-alert_target-error">
                {targetErrors.join(' ')}
              </div>
            )}
          </div>
        </section>
        <section class="card">
          <h2>Weekly report</h2>
          <label class="check">
            <input type="checkbox" name="weekly_report" value="on" checked={draft.weeklyReport} /> Make a
            report of the project's new and changed CVEs every Monday at 08:00 ({ctx.dateStyle.timeZone}),
            sent with the alert when there is one
          </label>
        </section>
        <section class="card">
          <h2>Summary</h2>
          <dl class="summary-list">
            <dt>Name</dt>
            <dd>{draft.name}</dd>
            <dt>Vendors and products</dt>
            <dd>
              {draft.subscriptions.length === 0 ? (
                <span class="muted">none yet</span>
              ) : (
                draft.subscriptions.map((k) => <span class="chip">{k.replace('$PRODUCT$', ' / ')}</span>)
              )}
            </dd>
          </dl>
          <div class="form-actions">
            <a href={orgPath(org, 'new-project/vendors')}>← Back</a>
            <button type="submit" class="btn-primary">
              Create project
            </button>
          </div>
        </section>
      </form>
    </OnboardingPage>
  );
}

const searchOf = (query: unknown): string => {
  const value = (query as Record<string, unknown>).search;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
};

/** Step 2's page, or to htmx (the search as you type) only the candidates. */
async function sendVendorsStep(
  services: WebServices,
  request: FastifyRequest,
  reply: FastifyReply,
  access: OrgAccess,
  draft: ProjectDraft,
  search: string,
  errors?: FormErrors,
) {
  const candidates = search ? await services.catalog.subscriptionCandidates(search) : [];
  const ctx = request.page;
  if (isHtmx(request) && request.headers['hx-history-restore-request'] !== 'true' && !errors)
    return sendFragment(
      reply,
      <CandidateRows
        ctx={ctx}
        id="candidates"
        search={search}
        candidates={candidates}
        chosen={new Set(draft.subscriptions)}
        addAction={orgPath(access.membership.name, 'new-project/vendors')}
      />,
    );
  const chosen = await services.catalog.keyCounts(draft.subscriptions);
  return sendPage(
    reply,
    <VendorsStep
      ctx={ctx}
      access={access}
      draft={draft}
      chosen={chosen}
      search={search}
      candidates={candidates}
      errors={errors}
    />,
    errors ? 400 : 200,
  );
}

export const projectOnboardingRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/org/:org/new-project', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const draft = draftOf(request, access.membership.name);
    return sendPage(reply, <NameStep ctx={request.page} access={access} draft={draft} />);
  });

  app.post('/org/:org/new-project', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const typed = {
      name: field(request.body, 'name').trim(),
      description: field(request.body, 'description').trim(),
    };
    try {
      await services.projects.checkNew(access.membership.organizationId, typed);
    } catch (err) {
      return sendPage(
        reply,
        <NameStep ctx={request.page} access={access} draft={typed} errors={formErrorsOf(err)} />,
        400,
      );
    }
    request.session.projectDraft = { ...draftOf(request, org), ...typed };
    return reply.redirect(orgPath(org, 'new-project/vendors'), 303);
  });

  app.get('/org/:org/new-project/vendors', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const draft = draftOf(request, access.membership.name);
    if (!draft.name) return reply.redirect(orgPath(access.membership.name, 'new-project'), 303);
    return sendVendorsStep(services, request, reply, access, draft, searchOf(request.query));
  });

  /** Adds (`add=<vendor key>`) or removes (`remove=<vendor key>`) a vendor or product of the draft. */
  app.post('/org/:org/new-project/vendors', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const draft = draftOf(request, org);
    const search = searchOf(request.body);
    const add = field(request.body, 'add');
    const remove = field(request.body, 'remove');
    try {
      if (add) {
        if (!(await services.catalog.existingVendorKeys([add])).has(add))
          throw validationError({
            add: ['The catalog has no such vendor or product: search again and press Add.'],
          });
        if (!draft.subscriptions.includes(add)) {
          if (draft.subscriptions.length >= DRAFT_MAX_SUBSCRIPTIONS)
            throw validationError({
              add: [
                `At most ${DRAFT_MAX_SUBSCRIPTIONS} vendors and products here; add more on the project's Subscriptions page once it exists.`,
              ],
            });
          draft.subscriptions = [...draft.subscriptions, add];
        }
      }
      if (remove) draft.subscriptions = draft.subscriptions.filter((k) => k !== remove);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      return sendVendorsStep(services, request, reply, access, draft, search, formErrorsOf(err));
    }
    request.session.projectDraft = draft;
    const next = orgPath(org, 'new-project/vendors');
    return reply.redirect(search ? `${next}?${new URLSearchParams({ search }).toString()}` : next, 303);
  });

  app.get('/org/:org/new-project/alerts', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const draft = draftOf(request, access.membership.name);
    if (!draft.name) return reply.redirect(orgPath(access.membership.name, 'new-project'), 303);
    return sendPage(reply, <AlertsStep ctx={request.page} access={access} draft={draft} />);
  });

  /** Creates the project with everything the draft holds, then its dashboard. */
  app.post('/org/:org/new-project/alerts', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const alertType = field(request.body, 'alert');
    const draft: ProjectDraft = {
      ...draftOf(request, org),
      alertType: alertType === 'email' || alertType === 'webhook' ? alertType : '',
      alertTarget: field(request.body, 'alert_target').trim(),
      weeklyReport: field(request.body, 'weekly_report') === 'on',
    };
    // What was typed is kept whatever happens next.
    request.session.projectDraft = draft;
    if (!draft.name) return reply.redirect(orgPath(org, 'new-project'), 303);
    try {
      if (alertType !== '' && alertType !== 'email' && alertType !== 'webhook')
        throw validationError({ alert: ['Choose no alert, email or webhook.'] });
      if (draft.alertType && !draft.alertTarget)
        throw validationError({
          alert_target: [
            draft.alertType === 'email'
              ? 'Type the email address to alert, or choose no alert.'
              : 'Type the webhook URL to alert, or choose no alert.',
          ],
        });
      await services.onboarding.createProject(
        access.membership.organizationId,
        {
          name: draft.name,
          description: draft.description,
          subscriptions: draft.subscriptions,
          alert: draft.alertType ? { type: draft.alertType, target: draft.alertTarget } : undefined,
          weeklyReport: draft.weeklyReport,
          timeZone: request.page.dateStyle.timeZone,
        },
        access.actor,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      // The service names the alert's problems `alert`: they belong beside the address field.
      if (errors.alert && draft.alertType) {
        errors.alert_target = [...(errors.alert_target ?? []), ...errors.alert];
        delete errors.alert;
      }
      return sendPage(
        reply,
        <AlertsStep ctx={request.page} access={access} draft={draft} errors={errors} />,
        400,
      );
    }
    request.session.projectDraft = undefined;
    return reply.redirect(`${projectPath(org, draft.name)}?done=created`, 303);
  });
};
