/**
 * `/org/<org>/projects/<project>/subscriptions`: the vendors and products the project follows, each
 * with its CVE count and those of the last 30 days, linked to the project's tracker and the catalog;
 * and the keywords it watches. Owners add from the search (the onboarding's candidates: htmx as you
 * type, a plain GET form without JavaScript) and remove, and edit the keywords (one per line, all
 * saved at once); members read. Changes go through ProjectService (validated, audited as
 * `subscription.update`, like API v2's subscription items) and ProjectKeywordService (`keyword.update`,
 * like API v2's keywords PUT).
 */
import { KeywordsField } from './keywords-field.tsx';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { splitVendorKey } from '../../domain/cpe.ts';
import { AppError, validationError } from '../../domain/errors.ts';
import { keysOfSubscriptions } from '../../domain/subscriptions.ts';
import type { KeyCounts } from '../../services/catalog.service.ts';
import { FormProblems } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, doneText, field } from '../kit/input.ts';
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
  keywords: 'Keywords saved: the project lists the CVEs they match.',
};

/** The keywords of the form's textarea: one per line, blank lines left out. */
const keywordsOfForm = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((k) => k.trim())
    .filter(Boolean);

function KeywordsCard({
  ctx,
  access,
  keywords,
  typed,
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  keywords: string[];
  typed?: string | undefined;
  errors?: FormErrors | undefined;
}) {
  const base = projectPath(access.membership.name, access.project.name, 'subscriptions');
  const problems = errors?.keywords ?? [];
  return (
    <section class="card" id="keywords" aria-labelledby="keywords-title">
      <h2 id="keywords-title">
        Watched keywords <span class="muted small">({formatCount(keywords.length)})</span>
      </h2>
      <p class="muted small">
        A keyword brings in every CVE that has it as a whole word, in any case, in an affected vendor or
        product name (as the CNA or an ADP wrote it), the title or the description: <code>xz</code> matches
        “xz” and “xz-utils”, not “xzone”. For what the catalog has no vendor or product for yet.
      </p>
      {access.isOwner ? (
        <form method="post" action={`${base}/keywords`} class="stacked">
          <Csrf ctx={ctx} />
          <KeywordsField keywords={keywords} typed={typed} problems={problems} />
          <div class="form-actions">
            <button type="submit" class="btn-primary">
              Save keywords
            </button>
          </div>
        </form>
      ) : keywords.length ? (
        <ul class="keyword-list">
          {keywords.map((k) => (
            <li>
              <code>{k}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None.</p>
      )}
    </section>
  );
}

const searchOf = (source: unknown): string => {
  const value = (source as Record<string, unknown> | undefined)?.search;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
};

function SubscriptionsPage({
  ctx,
  access,
  rows,
  keywords,
  typedKeywords,
  search,
  candidates,
  errors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  rows: KeyCounts[];
  keywords: string[];
  typedKeywords?: string | undefined;
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
      <FormProblems errors={errors} fields={['add', 'keywords']} />
      <section class="card">
        <h2>
          Followed vendors and products <span class="muted small">({formatCount(rows.length)})</span>
        </h2>
        {rows.length === 0 ? (
          <p class="muted">
            None yet{keywords.length ? '.' : ': the project lists no CVE.'}{' '}
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
      <KeywordsCard ctx={ctx} access={access} keywords={keywords} typed={typedKeywords} errors={errors} />
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
  extra: { errors?: FormErrors; done?: string | undefined; typedKeywords?: string } = {},
  status?: number,
) {
  const orgId = access.membership.organizationId;
  const keys = keysOfSubscriptions(await services.projects.getSubscriptions(orgId, access.project.name));
  const keywords = await services.projectKeywords.get(orgId, access.project.name);
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
      keywords={keywords}
      typedKeywords={extra.typedKeywords}
      search={search}
      candidates={candidates}
      errors={extra.errors}
      done={extra.done}
    />,
    status ?? (extra.errors ? 400 : 200),
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

  /** Replaces the keywords with those of `keywords` (one per line). */
  app.post('/org/:org/projects/:project/subscriptions/keywords', async (request, reply) => {
    const access = await projectAccess(services, request);
    assertCanConfigure(access);
    const typed = field(request.body, 'keywords');
    try {
      await services.projectKeywords.replace(
        access.membership.organizationId,
        access.project.name,
        keywordsOfForm(typed),
        access.actor,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendSubscriptions(
        services,
        request,
        reply,
        access,
        '',
        { errors, typedKeywords: typed },
        formStatusOf(err, reply),
      );
    }
    return reply.redirect(
      `${projectPath(access.membership.name, access.project.name, 'subscriptions')}?done=keywords#keywords`,
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
