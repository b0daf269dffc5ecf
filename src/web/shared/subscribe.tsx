/**
 * What the pages that subscribe projects share: the candidate search of the onboarding and of a
 * project's subscriptions (vendors and products with their CVE counts and those of the last 30 days,
 * a warning on noisy ones; htmx replaces the rows as you type, and the same URL without JavaScript is
 * the whole page), and the subscribe controls of the CVE and vendor pages (one button per project of
 * the current organization) with the handling of their POST.
 */
import type { FastifyRequest } from 'fastify';
import { nameLabel, vendorKey, vendorKeyLabel } from '../../domain/cpe.ts';
import { AppError, validationError } from '../../domain/errors.ts';
import { RECENT_COUNT_CAP, RECENT_DAYS, type KeyCounts } from '../../services/catalog.service.ts';
import type { ProjectSubscriptionState } from '../../services/project.service.ts';
import type { OrganizationMembership } from '../../services/web-session.service.ts';
import { formatCount } from '../kit/format.ts';
import { Csrf } from '../kit/layout.tsx';
import type { PageContext, WebServices } from '../kit/context.ts';
import { field, type FormErrors } from '../kit/input.ts';

/**
 * More CVEs than this published or changed in the last 30 days marks a candidate as noisy: about
 * three a day, or one alert email a working day for each of them (docs/web-ui.md).
 */
export const NOISY_RECENT = 100;

/** A vendor or product in people's words: `Linux`, `Linux / Linux Kernel` (vendorKeyLabel). */
export const keyLabel = (k: { vendor: string; product?: string | undefined }) =>
  vendorKeyLabel(k.product === undefined ? k.vendor : vendorKey(k.vendor, k.product));

/** The CVE list of a vendor or product: the catalog's, or a project tracker's. */
export function cveListHref(base: string, k: { vendor: string; product?: string | undefined }) {
  const params = new URLSearchParams({
    vendor: k.vendor,
    ...(k.product === undefined ? {} : { product: k.product }),
  });
  return `${base}?${params.toString()}`;
}

/** The number of CVEs of the last 30 days, "1,000+" at the cap, and a warning when noisy. */
export function RecentCount({ n }: { n: number }) {
  const text = `${formatCount(n)}${n >= RECENT_COUNT_CAP ? '+' : ''}`;
  return (
    <>
      {text}
      {n > NOISY_RECENT && (
        <span class="badge warn noisy" title={`More than ${NOISY_RECENT} CVEs in ${RECENT_DAYS} days`}>
          noisy
        </span>
      )}
    </>
  );
}

/** A vendor or product as a table cell names it: the vendor in bold, or the product "product of" its vendor. */
export function KeyCellName({ k }: { k: { vendor: string; product?: string | undefined } }) {
  const vendor = vendorKeyLabel(k.vendor);
  if (k.product === undefined) return <strong>{vendor}</strong>;
  return (
    <>
      {nameLabel(k.product) || k.product} <span class="muted small">product of {vendor}</span>
    </>
  );
}

/** The small form of one row that adds or removes its vendor or product, keeping the search typed. */
export function KeyButton({
  ctx,
  action,
  search,
  intent,
  k,
}: {
  ctx: PageContext;
  action: string;
  search: string;
  intent: 'add' | 'remove';
  k: { key: string; vendor: string; product?: string | undefined };
}) {
  return (
    <form method="post" action={action} class="inline-form">
      <Csrf ctx={ctx} />
      <input type="hidden" name="search" value={search} />
      <button type="submit" name={intent} value={k.key} class="btn-small">
        {intent === 'add' ? 'Add' : 'Remove'} <span class="visually-hidden">{keyLabel(k)}</span>
      </button>
    </form>
  );
}

/** Adding vendors and products: the candidate search, the refusal of the last add, the candidates. */
export function AddCandidates({
  ctx,
  action,
  search,
  candidates,
  chosen,
  errors,
}: {
  ctx: PageContext;
  action: string;
  search: string;
  candidates: Parameters<typeof CandidateRows>[0]['candidates'];
  chosen: Set<string>;
  errors: FormErrors | undefined;
}) {
  return (
    <>
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
        chosen={chosen}
        addAction={action}
      />
    </>
  );
}

/** The search box of the candidates: a plain GET form, htmx swaps the candidates as the user types. */
export function CandidateSearch({
  action,
  value,
  target,
}: {
  action: string;
  value: string;
  target: string;
}) {
  return (
    <form method="get" action={action} class="filters" role="search">
      <div class="field">
        <label for="f-search">Find a vendor or product</label>
        <input
          id="f-search"
          type="search"
          name="search"
          value={value}
          maxLength={200}
          autocomplete="off"
          placeholder="e.g. atlassian, jira"
          hx-get={action}
          hx-trigger="input changed delay:250ms, search"
          hx-target={`#${target}`}
          hx-select={`#${target}`}
          hx-swap="outerHTML"
          hx-push-url="true"
        />
      </div>
      <div class="field">
        <button type="submit">Search</button>
      </div>
    </form>
  );
}

/**
 * The candidates found for `search`, each with its counts and an Add button (a POST of `add=<key>`
 * to `addAction`, with `search` kept so the page comes back to the same results).
 */
export function CandidateRows({
  ctx,
  id,
  search,
  candidates,
  chosen,
  addAction,
}: {
  ctx: PageContext;
  id: string;
  search: string;
  candidates: KeyCounts[];
  chosen: ReadonlySet<string>;
  addAction: string;
}) {
  return (
    <div id={id} class="candidates" aria-live="polite">
      {search === '' ? (
        <p class="muted small">Type the start of a vendor or product name.</p>
      ) : candidates.length === 0 ? (
        <p class="muted">No vendor or product starts with “{search}”.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">Vendors and products starting with {search}</caption>
            <thead>
              <tr>
                <th scope="col">Vendor or product</th>
                <th scope="col" class="num">
                  CVEs
                </th>
                <th scope="col" class="num">
                  Last {RECENT_DAYS} days
                </th>
                <th scope="col">
                  <span class="visually-hidden">Add</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {candidates.map((c) => (
                <tr>
                  <td>
                    <KeyCellName k={c} />
                  </td>
                  <td class="num">{formatCount(c.cveCount)}</td>
                  <td class="num nowrap">
                    <RecentCount n={c.recentCount} />
                  </td>
                  <td>
                    {chosen.has(c.key) ? (
                      <span class="muted small">added</span>
                    ) : (
                      <KeyButton ctx={ctx} action={addAction} search={search} intent="add" k={c} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {candidates.some((c) => c.recentCount > NOISY_RECENT) && (
        <p class="small muted">
          <span class="badge warn">noisy</span> more than {NOISY_RECENT} CVEs published or changed in the last{' '}
          {RECENT_DAYS} days: subscribing to a product of it instead keeps the project's alerts readable.
        </p>
      )}
    </div>
  );
}

/**
 * One form per vendor or product, one button per project: pressed when the project subscribes to it.
 * The button's value says what pressing it does (`subscribe:<project>` or `unsubscribe:<project>`);
 * `action` is the page's own subscriptions URL (handled by `toggleSubscription`).
 */
export function SubscribeControls({
  ctx,
  action,
  states,
  vendor,
  product,
}: {
  ctx: PageContext;
  action: string;
  states: ProjectSubscriptionState[];
  vendor: string;
  product: string | undefined;
}) {
  const key = vendorKey(vendor, product);
  const what = product === undefined ? vendor : `${vendor} ${product}`;
  return (
    <form method="post" action={action} class="inline-form subscribe-controls">
      <Csrf ctx={ctx} />
      <input type="hidden" name="org" value={ctx.currentOrg!.name} />
      <input type="hidden" name="vendor" value={vendor} />
      {product !== undefined && <input type="hidden" name="product" value={product} />}
      {states.map((p) => {
        const subscribed = p.keys.includes(key);
        return (
          <button
            type="submit"
            name="toggle"
            value={`${subscribed ? 'unsubscribe' : 'subscribe'}:${p.name}`}
            class={subscribed ? 'btn-small subscribed' : 'btn-small'}
            aria-pressed={subscribed ? 'true' : 'false'}
            title={subscribed ? `Unsubscribe ${p.name} from ${what}` : `Subscribe ${p.name} to ${what}`}
          >
            {subscribed ? '✓ ' : '+ '}
            {p.name}
          </button>
        );
      })}
    </form>
  );
}

/** Whether the page shows subscribe controls for `org`: to its owners (members cannot change them). */
export const showsSubscribeControls = (
  org: OrganizationMembership | undefined,
): org is OrganizationMembership => org?.role === 'owner';

/** The organization a subscribe control names (`org`): one the user has joined, else 404. */
export function subscriptionOrg(request: FastifyRequest): OrganizationMembership {
  const org = request.page.organizations.find((o) => o.name === field(request.body, 'org'));
  if (!org) throw new AppError('not_found');
  return org;
}

/**
 * Subscribes a project of `org` to the vendor or product of a subscribe control's form, or
 * unsubscribes it (ProjectService: validated and audited as API v2's subscription items). Owners
 * only (a member gets 403, as on the project's Subscriptions page). A form without a pressed project
 * or a vendor is a 400 (validation error); a project the organization does not have is a 404.
 * Returns the done code.
 */
export async function toggleSubscription(
  services: Pick<WebServices, 'projects'>,
  request: FastifyRequest,
  org: OrganizationMembership,
): Promise<'subscribed' | 'unsubscribed'> {
  const ctx = request.page;
  if (org.role !== 'owner')
    throw new AppError(
      'permission_denied',
      `Only owners of ${org.name} can change a project's subscriptions. Ask one of them.`,
    );
  const vendor = field(request.body, 'vendor').trim();
  const product = field(request.body, 'product').trim() || undefined;
  const toggle = /^(subscribe|unsubscribe):(.+)$/s.exec(field(request.body, 'toggle'));
  const problems: Record<string, string[]> = {};
  if (!toggle) problems.toggle = ['Press a project’s button to subscribe or unsubscribe it.'];
  if (!vendor) problems.vendor = ['Choose a vendor or product.'];
  if (!toggle || Object.keys(problems).length) throw validationError(problems);
  const [, action, project] = toggle as unknown as [string, 'subscribe' | 'unsubscribe', string];
  const actor = { type: 'user' as const, id: ctx.user!.id, name: ctx.user!.username };
  const item = { vendor, product };
  if (action === 'subscribe')
    await services.projects.addSubscription(org.organizationId, project, item, actor);
  else await services.projects.removeSubscription(org.organizationId, project, item, actor);
  request.session.orgName = org.name;
  return `${action}d`;
}
