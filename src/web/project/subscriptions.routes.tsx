/**
 * `/org/<org>/projects/<project>/subscriptions`: the vendors and products the project follows, each
 * with its CVE count and those of the last 30 days, linked to the project's tracker and the catalog.
 * Owners add from the search (the onboarding's candidates: htmx as you type, a plain GET form
 * without JavaScript) and remove; members read. Changes go through ProjectService (validated, audited
 * as `subscription.update`, like API v2's subscription items).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { splitVendorKey } from '../../domain/cpe.ts';
import { AppError, validationError } from '../../domain/errors.ts';
import { keysOfSubscriptions } from '../../domain/subscriptions.ts';
import type { KeyCounts } from '../../services/catalog.service.ts';
import { FormProblems } from '../kit/fields.tsx';
import { formErrorsOf, type FormErrors, doneText, field } from '../kit/input.ts';
import { formatCount } from '../kit/format.ts';
import { Csrf, isHtmx, sendFragment, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions, WebServices } from '../kit/context.ts';
import { ProjectPage } from './project-page.tsx';
import { projectPath } from '../kit/paths.ts';
import { assertCanConfigure, projectAccess, type ProjectAccess } from '../kit/access.ts';
import {
  AddCandidates,
  CandidateRows,
  cveListHref,
  KeyCellName,
  keyLabel,
  RecentCount,
} from '../shared/subscribe.tsx';

/** Fixed texts of `?done=<code>` (never text from the request). */
const DONE: Record<string, string> = {
  added: 'Subscribed: the project now lists the CVEs of this vendor or product.',
  removed: 'Unsubscribed: the project no longer follows this vendor or product.',
};

const searchOf = (source: unknown): string => {
  const value = (source as Record<string, unknown> | undefined)?.search;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
};

function SubscriptionsPage({
  ctx,
  access,
  rows,
  search,
  candidates,
  errors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  rows: KeyCounts[];
  search: string;
  candidates: KeyCounts[];
  errors?: FormErrors | undefined;
  done?: string | undefined;
}) {
  const org = access.membership.name;
  const project = access.project;
  const base = projectPath(org, project.name, 'subscriptions');
  const tracker = projectPath(org, project.name, 'cves');
  return (
    <ProjectPage ctx={ctx} access={access} tab="subscriptions" title="Subscriptions" done={done}>
      <FormProblems errors={errors} fields={['add']} />
      <section class="card">
        <h2>
          Followed vendors and products <span class="muted small">({formatCount(rows.length)})</span>
        </h2>
        {rows.length === 0 ? (
          <p class="muted">
            None yet: the project lists no CVE.{' '}
            {access.isOwner ? 'Add vendors and products below.' : `An owner of ${org} can add them.`}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Subscriptions of {project.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Vendor or product</th>
                  <th scope="col" class="num">
                    CVEs
                  </th>
                  <th scope="col" class="num">
                    Last 30 days
                  </th>
                  <th scope="col">Catalog</th>
                  {access.isOwner && (
                    <th scope="col">
                      <span class="visually-hidden">Remove</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr>
                    <td>
                      <KeyCellName k={r} />
                    </td>
                    <td class="num">
                      <a href={cveListHref(tracker, r)} title={`The project's CVEs of ${keyLabel(r)}`}>
                        {formatCount(r.cveCount)}
                      </a>
                    </td>
                    <td class="num nowrap">
                      <RecentCount n={r.recentCount} />
                    </td>
                    <td>
                      <a
                        class="small"
                        href={
                          r.product === undefined
                            ? `/vendors/${encodeURIComponent(r.vendor)}`
                            : cveListHref('/cves', r)
                        }
                      >
                        {r.product === undefined ? 'Vendor page' : 'CVE list'}
                      </a>
                    </td>
                    {access.isOwner && (
                      <td>
                        <form method="post" action={`${base}/remove`} class="inline-form">
                          <Csrf ctx={ctx} />
                          <button type="submit" name="remove" value={r.key} class="btn-small">
                            Remove <span class="visually-hidden">{keyLabel(r)}</span>
                          </button>
                        </form>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="muted small">
          CVE counts are the catalog's (REJECTED ones included); “last 30 days” counts CVEs published or
          changed since, up to 1,000.
        </p>
      </section>
      {access.isOwner && (
        <section class="card">
          <h2>Add a vendor or product</h2>
          <AddCandidates
            ctx={ctx}
            action={base}
            search={search}
            candidates={candidates}
            chosen={new Set(rows.map((r) => r.key))}
            errors={errors}
          />
        </section>
      )}
    </ProjectPage>
  );
}

/** The page, or to htmx (the search as you type) only the candidates. */
async function sendSubscriptions(
  services: WebServices,
  request: FastifyRequest,
  reply: FastifyReply,
  access: ProjectAccess,
  search: string,
  extra: { errors?: FormErrors; done?: string | undefined } = {},
) {
  const orgId = access.membership.organizationId;
  const keys = keysOfSubscriptions(await services.projects.getSubscriptions(orgId, access.project.name));
  const candidates = access.isOwner && search ? await services.catalog.subscriptionCandidates(search) : [];
  const ctx = request.page;
  const base = projectPath(access.membership.name, access.project.name, 'subscriptions');
  if (isHtmx(request) && request.headers['hx-history-restore-request'] !== 'true' && !extra.errors)
    return sendFragment(
      reply,
      <CandidateRows
        ctx={ctx}
        id="candidates"
        search={search}
        candidates={candidates}
        chosen={new Set(keys)}
        addAction={base}
      />,
    );
  const rows = await services.catalog.keyCounts(keys);
  return sendPage(
    reply,
    <SubscriptionsPage
      ctx={ctx}
      access={access}
      rows={rows}
      search={search}
      candidates={candidates}
      errors={extra.errors}
      done={extra.done}
    />,
    extra.errors ? 400 : 200,
  );
}

export const projectSubscriptionsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/org/:org/projects/:project/subscriptions', async (request, reply) => {
    const access = await projectAccess(services, request);
    return sendSubscriptions(services, request, reply, access, searchOf(request.query), {
      done: doneText(DONE, request.query),
    });
  });

  /** Adds `add=<vendor key>` (a vendor, or `vendor$PRODUCT$product`). */
  app.post('/org/:org/projects/:project/subscriptions', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const search = searchOf(request.body);
    const add = field(request.body, 'add').trim();
    try {
      if (!add) throw validationError({ add: ['Search for a vendor or product and press its Add button.'] });
      const { vendor, product } = splitVendorKey(add);
      await services.projects.addSubscription(
        access.membership.organizationId,
        access.project.name,
        { vendor, product },
        access.actor,
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      const errors = formErrorsOf(err);
      // The service names an unknown vendor `vendors` and an unknown product `products`.
      const add = [...(errors.add ?? []), ...(errors.vendors ?? []), ...(errors.products ?? [])];
      const rest = Object.fromEntries(
        Object.entries(errors).filter(([k]) => !['add', 'vendors', 'products'].includes(k)),
      );
      return sendSubscriptions(services, request, reply, access, search, {
        errors: { ...rest, ...(add.length ? { add } : {}) },
      });
    }
    const params = new URLSearchParams({ ...(search ? { search } : {}), done: 'added' });
    return reply.redirect(
      `${projectPath(access.membership.name, access.project.name, 'subscriptions')}?${params}`,
      303,
    );
  });

  /** Removes `remove=<vendor key>` (idempotent: one the project does not have changes nothing). */
  app.post('/org/:org/projects/:project/subscriptions/remove', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const remove = field(request.body, 'remove').trim();
    if (!remove) {
      const errors = { _form: ['Press the Remove button of a vendor or product.'] };
      return sendSubscriptions(services, request, reply, access, '', { errors });
    }
    const { vendor, product } = splitVendorKey(remove);
    await services.projects.removeSubscription(
      access.membership.organizationId,
      access.project.name,
      { vendor, product },
      access.actor,
    );
    return reply.redirect(
      `${projectPath(access.membership.name, access.project.name, 'subscriptions')}?done=removed`,
      303,
    );
  });
};
