/**
 * The onboarding (owners): a project in three steps, `/org/<org>/new-project` (not under
 * `/projects/`, where a project may have any name).
 *
 * 1. `/new-project`: name and description, checked by ProjectService's rules (and the name not taken).
 * 2. `/new-project/vendors`: vendors and products, searched as you type (htmx swaps the candidates;
 *    the same URL with `?search=` is the whole page without JavaScript), each with its CVE count and
 *    those of the last 30 days, a warning on noisy ones; and watched keywords (`…/keywords`).
 * 3. `/new-project/alerts`: optionally an email or webhook alert for new critical or KEV CVEs, and a
 *    weekly report; "Create project" makes everything at once (OnboardingService: nothing is left
 *    half made on an error) and goes to the project's dashboard.
 *
 * The draft lives in the session between steps (one draft, for one organization), so a step can be
 * left and come back to without losing what was typed; it goes once the project is created.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { field, formErrorsOf, formStatusOf, type FormErrors } from '../../kit/input.ts';
import { isHtmx, sendFragment, sendPage } from '../../kit/layout.tsx';
import type { WebOptions, WebServices } from '../../kit/context.ts';
import { orgPath, projectPath } from '../../kit/paths.ts';
import { ownerAccess, type OrgAccess } from '../../kit/access.ts';
import { CandidateRows } from '../../shared/subscribe.tsx';
import { NameStep, VendorsStep } from './onboarding.view.tsx';
import { AlertsStep } from './alerts.view.tsx';
import {
  changeSubscriptions,
  emptyDraft,
  keywordsStepOf,
  nameStepOf,
  onboardingInputOf,
  placeAlertErrors,
  searchOf,
  withAlerts,
  type ProjectDraft,
} from './onboarding.form.ts';

declare module 'fastify' {
  interface Session {
    /** The onboarding's draft (one at a time). */
    projectDraft?: ProjectDraft;
  }
}

/** The session's draft when it is for `org`, else a new one. */
function draftOf(request: FastifyRequest, org: string): ProjectDraft {
  const draft = request.session.projectDraft;
  return draft?.org === org ? draft : emptyDraft(org);
}

/** Step 2's page, or to htmx (the search as you type) only the candidates. */
async function sendVendorsStep(
  services: WebServices,
  request: FastifyRequest,
  reply: FastifyReply,
  access: OrgAccess,
  draft: ProjectDraft,
  search: string,
  failed?: { errors: FormErrors; status: number; typedKeywords?: string },
) {
  const candidates = search ? await services.catalog.subscriptionCandidates(search) : [];
  const ctx = request.page;
  if (isHtmx(request) && request.headers['hx-history-restore-request'] !== 'true' && !failed)
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
      errors={failed?.errors}
      typedKeywords={failed?.typedKeywords}
    />,
    failed?.status ?? 200,
  );
}

export const projectOnboardingRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const emailConfigured = () => services.notifications.emailConfigured;
  app.get('/org/:org/new-project', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const draft = draftOf(request, access.membership.name);
    return sendPage(reply, <NameStep ctx={request.page} access={access} draft={draft} />);
  });

  app.post('/org/:org/new-project', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const typed = nameStepOf(request.body);
    try {
      await services.projects.checkNew(access.membership.organizationId, typed);
    } catch (err) {
      return sendPage(
        reply,
        <NameStep ctx={request.page} access={access} draft={typed} errors={formErrorsOf(err)} />,
        formStatusOf(err, reply),
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
      const addKnown = add !== '' && (await services.catalog.existingVendorKeys([add])).has(add);
      draft.subscriptions = changeSubscriptions(draft.subscriptions, { add, remove, addKnown });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      const failed = { errors: formErrorsOf(err), status: formStatusOf(err, reply) };
      return sendVendorsStep(services, request, reply, access, draft, search, failed);
    }
    request.session.projectDraft = draft;
    const next = orgPath(org, 'new-project/vendors');
    return reply.redirect(search ? `${next}?${new URLSearchParams({ search }).toString()}` : next, 303);
  });

  /** Replaces the draft's keywords with those typed (one per line). */
  app.post('/org/:org/new-project/keywords', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const draft = draftOf(request, org);
    try {
      draft.keywords = keywordsStepOf(request.body);
    } catch (err) {
      const failed = {
        errors: formErrorsOf(err),
        status: formStatusOf(err, reply),
        typedKeywords: field(request.body, 'keywords'),
      };
      return sendVendorsStep(services, request, reply, access, draft, '', failed);
    }
    request.session.projectDraft = draft;
    return reply.redirect(`${orgPath(org, 'new-project/vendors')}#keywords`, 303);
  });

  app.get('/org/:org/new-project/alerts', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const draft = draftOf(request, access.membership.name);
    if (!draft.name) return reply.redirect(orgPath(access.membership.name, 'new-project'), 303);
    return sendPage(
      reply,
      <AlertsStep ctx={request.page} access={access} draft={draft} emailConfigured={emailConfigured()} />,
    );
  });

  /** Creates the project with everything the draft holds, then its dashboard. */
  app.post('/org/:org/new-project/alerts', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const org = access.membership.name;
    const draft = withAlerts(draftOf(request, org), request.body);
    // What was typed is kept whatever happens next.
    request.session.projectDraft = draft;
    if (!draft.name) return reply.redirect(orgPath(org, 'new-project'), 303);
    try {
      const input = onboardingInputOf(draft, request.body, request.page.dateStyle.timeZone);
      await services.onboarding.createProject(access.membership.organizationId, input, access.actor);
    } catch (err) {
      const errors = placeAlertErrors(formErrorsOf(err), draft);
      return sendPage(
        reply,
        <AlertsStep
          ctx={request.page}
          access={access}
          draft={draft}
          errors={errors}
          emailConfigured={emailConfigured()}
        />,
        formStatusOf(err, reply),
      );
    }
    request.session.projectDraft = undefined;
    return reply.redirect(`${projectPath(org, draft.name)}?done=created`, 303);
  });
};
