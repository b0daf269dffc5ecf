/**
 * A CVE's page, `/cves/<CVE-ID>` (any case; the canonical URL is upper case): title and description,
 * a summary (best CVSS, EPSS, KEV, SSVC), every CVSS vector in named metrics, vendors and products
 * with a subscribe control per project of the current organization, weaknesses, references, NVD's
 * configurations, each provider's statement with its raw record (`/cves/<id>/sources/<provider>`,
 * also an htmx fragment) and the change history with word-level diffs (`?history=<page>`).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { NvdConfiguration, Reference } from '../../../domain/cve.ts';
import type { ProjectMatch } from '../../../domain/project-match.ts';
import { splitVendorKey, vendorKey } from '../../../domain/cpe.ts';
import type { CvePage, CveChangeRecord } from '../../../services/catalog.service.ts';
import type { ProjectSubscriptionState } from '../../../services/project.service.ts';
import { FormProblems, Notice, Time } from '../../kit/fields.tsx';
import { formErrorsOf, type FormErrors, doneText } from '../../kit/input.ts';
import { formatCount, languageName } from '../../kit/format.ts';
import { isHtmx, Layout, sendFragment, sendPage } from '../../kit/layout.tsx';
import type { PageContext, WebOptions } from '../../kit/context.ts';
import { ProjectsPanel } from '../../shared/project-match-panel.tsx';
import { projectPath } from '../../kit/paths.ts';
import {
  showsSubscribeControls,
  SubscribeControls,
  subscriptionOrg,
  toggleSubscription,
} from '../../shared/subscribe.tsx';
import {
  ChangeEntryView,
  Configurations,
  CvssBreakdown,
  METRIC_LABELS,
  PROVIDER_LABELS,
  providerName,
  SafeLink,
  Summary,
  vectorStatements,
} from '../../shared/cve-sections.tsx';

const CVE_ID = /^cve-\d{4}-\d{4,19}$/i;
const HISTORY_PAGE_SIZE = 20;

/** Flash notices after a POST: fixed text by code, never what the request carried. */
const DONE: Record<string, string> = {
  subscribed: 'Subscribed: the project now lists the CVEs of this vendor or product.',
  unsubscribed: 'Unsubscribed: the project no longer follows this vendor or product.',
};

const SECTIONS = [
  ['summary', 'Summary'],
  ['description', 'Description'],
  ['cvss', 'CVSS'],
  ['vendors', 'Vendors and products'],
  ['weaknesses', 'Weaknesses'],
  ['references', 'References'],
  ['configurations', 'Configurations'],
  ['sources', 'Sources'],
  ['history', 'History'],
] as const;

/** The canonical id of a path parameter, or a 404 for something that is no CVE id. */
function cveIdOf(param: string): string {
  if (!CVE_ID.test(param)) throw new AppError('not_found');
  return param.toUpperCase();
}

const cvePath = (id: string) => `/cves/${id}`;
const vendorPath = (id: string, vendor: string) => `/cves/${id}/vendors/${encodeURIComponent(vendor)}`;
const sourcePath = (id: string, provider: string) => `/cves/${id}/sources/${encodeURIComponent(provider)}`;

function ProductItem({
  ctx,
  cveId,
  states,
  vendor,
  product,
}: {
  ctx: PageContext;
  cveId: string;
  states: ProjectSubscriptionState[] | undefined;
  vendor: string;
  product: string;
}) {
  return (
    <li class="product-item">
      <span>
        <strong>{product}</strong>{' '}
        <a
          class="small"
          href={`/cves?vendor=${encodeURIComponent(vendor)}&product=${encodeURIComponent(product)}`}
        >
          CVE list
        </a>
      </span>
      {states && (
        <SubscribeControls
          ctx={ctx}
          action={`${cvePath(cveId)}/subscriptions`}
          states={states}
          vendor={vendor}
          product={product}
        />
      )}
    </li>
  );
}

/** The products of one vendor named by a CVE, with their subscribe controls (a fragment, or a page). */
function VendorProducts({
  ctx,
  cveId,
  vendor,
  products,
  states,
}: {
  ctx: PageContext;
  cveId: string;
  vendor: string;
  products: string[];
  states: ProjectSubscriptionState[] | undefined;
}) {
  const controls = states && states.length > 0 ? states : undefined;
  return (
    <ul class="product-list">
      {products.map((product) => (
        <ProductItem ctx={ctx} cveId={cveId} states={controls} vendor={vendor} product={product} />
      ))}
    </ul>
  );
}

/** More products than this under one vendor: folded in a <details>. */
const PRODUCTS_SHOWN = 6;

function Vendors({
  ctx,
  page,
  states,
  errors,
}: {
  ctx: PageContext;
  page: CvePage;
  states: ProjectSubscriptionState[] | undefined;
  errors: FormErrors | undefined;
}) {
  const byVendor = new Map<string, string[]>();
  for (const key of page.cve.vendors) {
    const { vendor, product } = splitVendorKey(key);
    const products = byVendor.get(vendor) ?? [];
    if (product !== undefined) products.push(product);
    byVendor.set(vendor, products);
  }
  const org = ctx.currentOrg;
  const controls = org && states && states.length > 0;
  const cveId = page.cve.cve_id;
  const productItem = (vendor: string, product: string) => (
    <ProductItem
      ctx={ctx}
      cveId={cveId}
      states={controls ? states : undefined}
      vendor={vendor}
      product={product}
    />
  );
  return (
    <section id="vendors" aria-labelledby="vendors-title">
      <h2 id="vendors-title">Vendors and products</h2>
      <FormProblems errors={errors} />
      {byVendor.size === 0 ? (
        <p class="muted">No vendor or product is named for this CVE yet.</p>
      ) : (
        <>
          {org && states && (
            <p class="muted small">
              {states.length === 0
                ? `${org.name} has no project yet: a project subscribes to vendors and products and lists their CVEs.`
                : `The buttons are the projects of ${org.name}: pressed (✓) when the project subscribes to that vendor or product; press one to subscribe or unsubscribe it.`}
            </p>
          )}
          <ul class="vendor-list">
            {[...byVendor].map(([vendor, products]) => (
              <li class="card vendor-item">
                <div class="vendor-head">
                  <span>
                    <a href={`/vendors/${encodeURIComponent(vendor)}`}>
                      <strong>{vendor}</strong>
                    </a>{' '}
                    <span class="muted small">vendor</span>{' '}
                    <a class="small" href={`/cves?vendor=${encodeURIComponent(vendor)}`}>
                      CVE list
                    </a>
                  </span>
                  {controls && (
                    <SubscribeControls
                      ctx={ctx}
                      action={`${cvePath(cveId)}/subscriptions`}
                      states={states}
                      vendor={vendor}
                      product={undefined}
                    />
                  )}
                </div>
                {products.length > 0 && products.length <= PRODUCTS_SHOWN && (
                  <ul class="product-list">{products.map((product) => productItem(vendor, product))}</ul>
                )}
                {products.length > PRODUCTS_SHOWN && (
                  // Many products (Log4Shell names 94 of cisco's): their controls load when opened
                  // (htmx), or on their own page without JavaScript, so the page stays light.
                  <details
                    class="vendor-products"
                    hx-get={vendorPath(cveId, vendor)}
                    hx-trigger="toggle once"
                    hx-target="find .products-slot"
                    hx-swap="innerHTML"
                  >
                    <summary>
                      {formatCount(products.length)} products of {vendor}
                    </summary>
                    <div class="products-slot">
                      <p class="small">{products.join(', ')}</p>
                      <p class="small">
                        <a href={vendorPath(cveId, vendor)}>
                          {controls ? `Subscribe to products of ${vendor}` : `The products of ${vendor}`}
                        </a>
                      </p>
                    </div>
                  </details>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Weaknesses({ page }: { page: CvePage }) {
  return (
    <section id="weaknesses" aria-labelledby="weaknesses-title">
      <h2 id="weaknesses-title">Weaknesses</h2>
      {page.cve.weaknesses.length === 0 ? (
        <p class="muted">No weakness (CWE) is named for this CVE.</p>
      ) : (
        <ul class="weakness-list">
          {page.cve.weaknesses.map((id) => (
            <li>
              {/^CWE-\d+$/.test(id) ? <a href={`/weaknesses/${id}`}>{id}</a> : <span class="mono">{id}</span>}
              {page.weaknessNames.has(id) && <span> · {page.weaknessNames.get(id)}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function References({ page }: { page: CvePage }) {
  const refs = page.cve.references as Reference[];
  return (
    <section id="references" aria-labelledby="references-title">
      <h2 id="references-title">References</h2>
      {refs.length === 0 ? (
        <p class="muted">No references.</p>
      ) : (
        <div class="table-wrap">
          <table class="data references">
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Tags</th>
              </tr>
            </thead>
            <tbody>
              {refs.map((r) => (
                <tr>
                  <td class="ref-url">
                    <SafeLink url={r.url} />
                    {r.name && r.name !== r.url && <div class="muted small">{r.name}</div>}
                  </td>
                  <td>
                    {r.tags.map((t) => (
                      <span class="chip">{t}</span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Sources({ ctx, page }: { ctx: PageContext; page: CvePage }) {
  const id = page.cve.cve_id;
  return (
    <section id="sources" aria-labelledby="sources-title">
      <h2 id="sources-title">Sources</h2>
      <p class="muted small">
        What each provider states about this CVE; the page above merges them (the CVE record first, then
        CISA's enrichment, then NVD).
      </p>
      {page.sources.map((s) => {
        const url = sourcePath(id, s.provider);
        const stated = Object.entries(s.metrics)
          .filter(
            ([, v]) =>
              v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v as object).length === 0),
          )
          .map(([k]) => METRIC_LABELS[k] ?? k);
        return (
          <div class="card source" id={`source-${s.provider}`}>
            <h3>{providerName(s.provider)}</h3>
            <p class="small muted">
              {PROVIDER_LABELS[s.provider]?.about} Last written{' '}
              <Time date={s.updated_at} style={ctx.dateStyle} />.
              {stated.length > 0 && ` States: ${stated.join(', ')}.`}
            </p>
            <details
              class="raw-record"
              hx-get={url}
              hx-trigger="toggle once"
              hx-target="find .raw-slot"
              hx-swap="innerHTML"
            >
              <summary>Raw record</summary>
              <div class="raw-slot">
                <a href={url}>Open the raw record of {providerName(s.provider)}</a>
              </div>
            </details>
          </div>
        );
      })}
    </section>
  );
}

function HistoryItem({ change, ctx }: { change: CveChangeRecord; ctx: PageContext }) {
  return (
    <li class="card change" id={`change-${change.id}`}>
      <h3>
        <Time date={change.created_at} style={ctx.dateStyle} />{' '}
        {change.types.map((t) => (
          <span class="chip">{t}</span>
        ))}
      </h3>
      {change.data.map((entry) => (
        <ChangeEntryView entry={entry} />
      ))}
    </li>
  );
}

function History({ ctx, page, historyPage }: { ctx: PageContext; page: CvePage; historyPage: number }) {
  const { count, items } = page.changes;
  const pages = Math.max(1, Math.ceil(count / HISTORY_PAGE_SIZE));
  const base = cvePath(page.cve.cve_id);
  const link = (n: number) => (n === 1 ? `${base}#history` : `${base}?history=${n}#history`);
  return (
    <section id="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <p class="muted small">
        {formatCount(count)} change{count === 1 ? '' : 's'} recorded, newest first. EPSS moves daily and is
        not recorded as a change.
      </p>
      <ol class="history">
        {items.map((c) => (
          <HistoryItem change={c} ctx={ctx} />
        ))}
      </ol>
      {pages > 1 && (
        <nav class="pager" aria-label="History pages">
          {historyPage > 1 ? <a href={link(historyPage - 1)}>← Newer changes</a> : <span />}
          <span class="muted small">
            Page {historyPage} of {pages}
          </span>
          {historyPage < pages ? <a href={link(historyPage + 1)}>Older changes →</a> : <span />}
        </nav>
      )}
    </section>
  );
}

function CvePageView({
  ctx,
  page,
  states,
  matches,
  historyPage,
  done,
  errors,
}: {
  ctx: PageContext;
  page: CvePage;
  states: ProjectSubscriptionState[] | undefined;
  matches: ProjectMatch[] | undefined;
  historyPage: number;
  done: string | undefined;
  errors?: FormErrors | undefined;
}) {
  const cve = page.cve;
  const rejected = cve.state === 'REJECTED';
  const vectors = vectorStatements(cve.metrics, page.sources);
  const configurations = (cve.nvd_configurations ?? []) as NvdConfiguration[];
  return (
    <Layout ctx={ctx} title={cve.title ? `${cve.cve_id}: ${cve.title}` : cve.cve_id} section="cves">
      <div class="crumbs">
        <a href="/cves">CVEs</a> / {cve.cve_id}
      </div>
      <div class="page-head">
        <h1>{cve.cve_id}</h1>
        {cve.kev && <span class="badge kev">Known exploited</span>}
      </div>
      {cve.title && <p class="cve-title">{cve.title}</p>}
      {rejected && (
        <div class="banner-rejected" role="note">
          REJECTED: this CVE id was rejected by its CNA and should not be used. The text below is the
          rejection reason.
        </div>
      )}
      {done && <Notice>{done}</Notice>}
      <nav class="section-nav" aria-label="Sections of this page">
        {SECTIONS.map(([id, label]) => (
          <a href={`#${id}`}>{label}</a>
        ))}
        {matches && <a href="#projects">Projects</a>}
      </nav>
      <div class="two-col cve-detail">
        <div class="stack">
          <section id="description" aria-labelledby="description-title">
            <h2 id="description-title">Description</h2>
            {cve.description ? (
              <p class="cve-description" lang={page.descriptionLang ?? undefined}>
                {cve.description}
              </p>
            ) : (
              <p class="muted">No description yet.</p>
            )}
            {cve.description && (
              <p class="muted small">
                {page.descriptionLang
                  ? `Language: ${languageName(page.descriptionLang)} (${page.descriptionLang}).`
                  : 'Language: not stated by the record.'}
              </p>
            )}
          </section>
          <section id="cvss" aria-labelledby="cvss-title">
            <h2 id="cvss-title">CVSS</h2>
            {vectors.length === 0 ? (
              <p class="muted">No CVSS vector is stated for this CVE.</p>
            ) : (
              vectors.map((v, i) => <CvssBreakdown statement={v} idPrefix={`cvss-${i + 1}`} />)
            )}
          </section>
          <Vendors ctx={ctx} page={page} states={states} errors={errors} />
          {matches && ctx.currentOrg && (
            <ProjectsPanel
              ctx={ctx}
              org={ctx.currentOrg.name}
              cveId={cve.cve_id}
              matches={matches}
              projectCveUrl={(project) => projectPath(ctx.currentOrg!.name, project, `cves/${cve.cve_id}`)}
            />
          )}
          <Weaknesses page={page} />
          <References page={page} />
          <section id="configurations" aria-labelledby="configurations-title">
            <h2 id="configurations-title">Configurations</h2>
            {configurations.length === 0 ? (
              <p class="muted">NVD states no CPE configuration for this CVE.</p>
            ) : (
              <>
                <p class="muted small">
                  NVD's configurations: the CVE applies where a configuration's conditions all hold.
                </p>
                <Configurations configurations={configurations} />
              </>
            )}
          </section>
          <Sources ctx={ctx} page={page} />
          <History ctx={ctx} page={page} historyPage={historyPage} />
        </div>
        <div>
          <Summary cve={page.cve} ctx={ctx} />
        </div>
      </div>
    </Layout>
  );
}

/** A provider's statement pretty-printed: the upstream record when kept, and the normalized statement. */
function RawRecord({ record }: { record: { provider: string; data: unknown; raw: unknown } }) {
  return (
    <div class="raw-record-body">
      {record.raw !== null && record.raw !== undefined && (
        <>
          <p class="small">
            <strong>Upstream record</strong>
          </p>
          <pre class="raw-json">{JSON.stringify(record.raw, null, 2)}</pre>
        </>
      )}
      <p class="small">
        <strong>Statement as vulntrack normalized it</strong>
      </p>
      <pre class="raw-json">{JSON.stringify(record.data, null, 2)}</pre>
    </div>
  );
}

function SourcePage({
  ctx,
  cveId,
  record,
}: {
  ctx: PageContext;
  cveId: string;
  record: { provider: string; data: unknown; raw: unknown; updated_at: Date };
}) {
  const name = providerName(record.provider);
  return (
    <Layout ctx={ctx} title={`${cveId}: ${name}`} section="cves">
      <div class="crumbs">
        <a href="/cves">CVEs</a> / <a href={cvePath(cveId)}>{cveId}</a> /{' '}
        <a href={`${cvePath(cveId)}#sources`}>Sources</a>
      </div>
      <h1>
        {cveId}: {name}
      </h1>
      <p class="muted small">
        {PROVIDER_LABELS[record.provider]?.about} Last written{' '}
        <Time date={record.updated_at} style={ctx.dateStyle} />.
      </p>
      <RawRecord record={record} />
    </Layout>
  );
}

function historyPageOf(request: FastifyRequest): number {
  const raw = (request.query as { history?: unknown }).history;
  if (raw === undefined || raw === '') return 1;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw)) throw new AppError('not_found');
  return Number(raw);
}

export const cveDetailRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  /** The page: the CVE (one catalog call) and, for the current organization, its projects' subscriptions. */
  const renderCve = async (
    request: FastifyRequest,
    id: string,
    historyPage: number,
    extra: { done?: string | undefined; errors?: FormErrors } = {},
  ) => {
    const page = await services.catalog.cvePage(id, { page: historyPage, pageSize: HISTORY_PAGE_SIZE });
    const org = request.page.currentOrg;
    const states = showsSubscribeControls(org)
      ? await services.projects.subscriptionStates(org.organizationId, page.cve.vendors)
      : undefined;
    // Why the CVE is (not) in each project of the organization: one more query (ProjectMatchService).
    const matches = org ? await services.projectMatch.explainAll(org.organizationId, id) : undefined;
    return (
      <CvePageView
        ctx={request.page}
        page={page}
        states={states}
        matches={matches}
        historyPage={historyPage}
        done={extra.done}
        errors={extra.errors}
      />
    );
  };

  app.get<{ Params: { cve_id: string } }>('/cves/:cve_id', async (request, reply) => {
    const id = cveIdOf(request.params.cve_id);
    if (id !== request.params.cve_id) {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      return reply.redirect(`${cvePath(id)}${query}`, 301);
    }
    const view = await renderCve(request, id, historyPageOf(request), {
      done: doneText(DONE, request.query),
    }).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'not_found')
        throw new AppError(
          'not_found',
          `${id} is not in the catalog: not published yet, or its record not imported.`,
        );
      throw err;
    });
    return sendPage(reply, view);
  });

  app.get<{ Params: { cve_id: string; vendor: string } }>(
    '/cves/:cve_id/vendors/:vendor',
    async (request, reply) => {
      const id = cveIdOf(request.params.cve_id);
      const { vendor } = request.params;
      const cve = await services.catalog.getCve(id);
      const products = cve.vendors
        .map((key) => splitVendorKey(key))
        .filter((k) => k.vendor === vendor && k.product !== undefined)
        .map((k) => k.product!);
      if (!cve.vendors.includes(vendor)) throw new AppError('not_found');
      const org = request.page.currentOrg;
      const states = showsSubscribeControls(org)
        ? await services.projects.subscriptionStates(
            org.organizationId,
            products.map((p) => vendorKey(vendor, p)),
          )
        : undefined;
      const list = (
        <VendorProducts ctx={request.page} cveId={id} vendor={vendor} products={products} states={states} />
      );
      if (isHtmx(request)) return sendFragment(reply, list);
      return sendPage(
        reply,
        <Layout ctx={request.page} title={`${id}: products of ${vendor}`} section="cves">
          <div class="crumbs">
            <a href="/cves">CVEs</a> / <a href={cvePath(id)}>{id}</a> /{' '}
            <a href={`${cvePath(id)}#vendors`}>Vendors</a>
          </div>
          <h1>
            {id}: products of {vendor}
          </h1>
          <p class="muted small">
            The products of <a href={`/vendors/${encodeURIComponent(vendor)}`}>{vendor}</a> this CVE names
            {org && states && states.length > 0 ? `, with the projects of ${org.name}.` : '.'}
          </p>
          {list}
        </Layout>,
      );
    },
  );

  app.get<{ Params: { cve_id: string; provider: string } }>(
    '/cves/:cve_id/sources/:provider',
    async (request, reply) => {
      const id = cveIdOf(request.params.cve_id);
      const record = await services.catalog.sourceRecord(id, request.params.provider);
      if (isHtmx(request)) return sendFragment(reply, <RawRecord record={record} />);
      return sendPage(reply, <SourcePage ctx={request.page} cveId={id} record={record} />);
    },
  );

  /**
   * Subscribes a project of one of the user's organizations to a vendor or product, or unsubscribes it
   * (ProjectService: validated, audited like API v2's subscription items). Only a member of the
   * organization: another organization's name answers 404, as the API does.
   */
  app.post<{ Params: { cve_id: string } }>('/cves/:cve_id/subscriptions', async (request, reply) => {
    const id = cveIdOf(request.params.cve_id);
    const org = subscriptionOrg(request);
    let done: string;
    try {
      done = await toggleSubscription(services, request, org);
    } catch (err) {
      // A project or subscription that is not there stays a 404 (as in the API); a bad form is shown on the page.
      if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
      request.page.currentOrg = org;
      return sendPage(reply, await renderCve(request, id, 1, { errors: formErrorsOf(err) }), 400);
    }
    return reply.redirect(`${cvePath(id)}?done=${done}#vendors`, 303);
  });
};
