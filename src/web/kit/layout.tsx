/**
 * Every page's frame and how a page is sent: Preact components rendered to a string on the server
 * (text and attributes are escaped by Preact; nothing here sets raw HTML), with the page chrome, the
 * global search, the organization switcher and the user menu.
 */
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebUser } from '../../domain/user.ts';
import type { AssetName } from './assets.ts';
import type { PageContext } from './context.ts';
import { DEFAULT_DATE_STYLE, type DateStyle } from './format.ts';
import { FreshnessBanner } from './freshness.tsx';

export interface PageProps {
  ctx: PageContext;
  title: string;
  children: ComponentChildren;
  /** Top navigation item to mark as current. */
  section?: 'projects' | 'cves' | 'vendors' | 'weaknesses' | 'statistics' | 'organization' | 'account';
  /** Extra scripts of this page (islands), beside htmx and app.js. */
  scripts?: AssetName[];
  /** A page without the top navigation (sign-in, first administrator). */
  bare?: boolean;
  /** The page's own keyboard shortcuts, listed in the `?` dialog after the global ones. */
  shortcuts?: PageShortcut[];
  /**
   * Whether the header shows the global search box; false on a page whose own query box searches
   * the same catalog (`/cves`), so the page has one search box, not two that behave differently.
   */
  search?: boolean;
}

/** A shortcut of one page: its keys (each a `<kbd>`) and what it does. */
export interface PageShortcut {
  keys: string[];
  label: string;
}

const NAV = [
  { key: 'projects', href: '/projects', label: 'Projects', goto: 'p' },
  { key: 'cves', href: '/cves', label: 'CVEs', goto: 'c' },
  { key: 'vendors', href: '/vendors', label: 'Vendors', goto: 'v' },
  { key: 'weaknesses', href: '/weaknesses', label: 'Weaknesses', goto: 'w' },
  { key: 'statistics', href: '/statistics', label: 'Statistics', goto: 's' },
] as const;

/** A form's hidden CSRF field. */
export function Csrf({ ctx }: { ctx: PageContext }) {
  return <input type="hidden" name="_csrf" value={ctx.csrfToken} />;
}

function OrganizationSwitcher({ ctx }: { ctx: PageContext }) {
  if (ctx.organizations.length === 0) return null;
  return (
    <details class="menu">
      <summary id="org-menu">
        <span class="visually-hidden">Organization: </span>
        <span class="menu-name">{ctx.currentOrg?.name ?? 'Organizations'}</span>
      </summary>
      <div class="menu-items">
        <div class="menu-label">Switch organization</div>
        {ctx.organizations.map((org) => (
          <a href={`/org/${org.name}`} aria-current={org.name === ctx.currentOrg?.name ? 'true' : undefined}>
            {org.name} <span class="muted small">{org.role}</span>
          </a>
        ))}
      </div>
    </details>
  );
}

function UserMenu({ ctx }: { ctx: PageContext }) {
  const user = ctx.user;
  if (!user) return null;
  return (
    <details class="menu">
      <summary id="account-menu">
        <span class="visually-hidden">Account: </span>
        <span class="menu-name">{user.username}</span>
      </summary>
      <div class="menu-items">
        <a href="/account">Settings</a>
        <a href="/account/security">Password and two-factor</a>
        {ctx.currentOrg && <a href={`/org/${ctx.currentOrg.name}/tokens`}>API tokens</a>}
        <a href="/api/v2/docs/">API documentation</a>
        {user.isAdmin && <a href="/admin/users">Users (server administration)</a>}
        <hr />
        <form method="post" action="/logout" class="inline-form">
          <Csrf ctx={ctx} />
          <button type="submit">Sign out</button>
        </form>
      </div>
    </details>
  );
}

/**
 * The navigation folded into one menu button for narrow screens (CSS shows it below 760 px and hides
 * the inline navigation and search there): a `<details>`, so it opens without JavaScript.
 */
function NarrowMenu({
  ctx,
  section,
  search,
}: {
  ctx: PageContext;
  section: PageProps['section'];
  /** As `PageProps.search`: no second search box on a page that has its own. */
  search: boolean;
}) {
  return (
    <details class="menu nav-menu">
      <summary id="nav-menu">Menu</summary>
      <div class="menu-items">
        <nav aria-label="Main (menu)">
          {NAV.map((item) => (
            <a href={item.href} aria-current={section === item.key ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        {ctx.user && search && (
          <form class="menu-search" role="search" method="get" action="/search">
            <input type="search" name="q" aria-label="Search CVEs, vendors and products" maxLength={200} />
            <button type="submit" class="btn-small">
              Search
            </button>
          </form>
        )}
      </div>
    </details>
  );
}

function Shortcuts({ extra = [] }: { extra?: PageShortcut[] }) {
  return (
    <dialog id="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table class="kv">
        <tbody>
          <tr>
            <th>
              <kbd>/</kbd>
            </th>
            <td>Search CVEs, vendors and products</td>
          </tr>
          <tr>
            <th>
              <kbd>?</kbd>
            </th>
            <td>Show this list</td>
          </tr>
          {NAV.map((item) => (
            <tr>
              <th>
                <kbd>g</kbd> <kbd>{item.goto}</kbd>
              </th>
              <td>Go to {item.label}</td>
            </tr>
          ))}
          {extra.map((shortcut) => (
            <tr>
              <th>
                {shortcut.keys.map((key, i) => (
                  <>
                    {i > 0 && ' '}
                    <kbd>{key}</kbd>
                  </>
                ))}
              </th>
              <td>{shortcut.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <button type="button" data-close-dialog>
          Close
        </button>
      </p>
    </dialog>
  );
}

export function Layout({
  ctx,
  title,
  children,
  section,
  scripts = [],
  bare = false,
  shortcuts = [],
  search = true,
}: PageProps) {
  const theme = ctx.user?.theme ?? 'auto';
  return (
    <html lang="en" data-theme={theme}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · vulntrack`}</title>
        <meta
          name="htmx-config"
          content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'
        />
        <link rel="icon" href={ctx.assets['icon.svg'].url} type="image/svg+xml" />
        <link rel="stylesheet" href={ctx.assets['app.css'].url} />
        <script src={ctx.assets['htmx.js'].url} defer></script>
        <script src={ctx.assets['app.js'].url} defer></script>
        {scripts.map((name) => (
          <script src={ctx.assets[name].url} defer></script>
        ))}
      </head>
      <body hx-headers={JSON.stringify({ 'x-csrf-token': ctx.csrfToken })}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {!bare && (
          <header class="topbar">
            <div class="topbar-inner">
              <a class="brand" href="/">
                <img src={ctx.assets['icon.svg'].url} alt="" width={22} height={22} />
                <span class="brand-name">vulntrack</span>
              </a>
              <NarrowMenu ctx={ctx} section={section} search={search} />
              <nav class="mainnav" aria-label="Main">
                {NAV.map((item) => (
                  <a
                    href={item.href}
                    data-goto={item.goto}
                    aria-current={section === item.key ? 'page' : undefined}
                  >
                    {item.label}
                  </a>
                ))}
              </nav>
              {ctx.user && search && (
                <form class="global-search" role="search" method="get" action="/search">
                  <label for="global-search" class="skip-link">
                    Search
                  </label>
                  <input
                    id="global-search"
                    type="search"
                    name="q"
                    placeholder="CVE id, vendor or product  ( / )"
                    autocomplete="off"
                    maxLength={200}
                    hx-get="/search/suggest"
                    hx-trigger="input changed delay:250ms"
                    hx-target="#search-suggestions"
                    aria-controls="search-suggestions"
                  />
                  <div id="search-suggestions" aria-live="polite"></div>
                </form>
              )}
              <div class="usermenu">
                <OrganizationSwitcher ctx={ctx} />
                <UserMenu ctx={ctx} />
              </div>
            </div>
          </header>
        )}
        <main id="main" class={bare ? 'narrow' : undefined}>
          {!bare && <FreshnessBanner ctx={ctx} />}
          {children}
        </main>
        {!bare && (
          <footer class="site">
            vulntrack · <a href="/api/v2/docs/">API v2</a> · press <kbd>?</kbd> for keyboard shortcuts
          </footer>
        )}
        <Shortcuts extra={shortcuts} />
      </body>
    </html>
  );
}

/** A page of one small card without the navigation: sign-in, sign-up, links from emails. */
export function AuthPage({
  ctx,
  title,
  heading = title,
  bare = true,
  children,
}: {
  ctx: PageContext;
  title: string;
  heading?: ComponentChildren;
  bare?: boolean;
  children: ComponentChildren;
}) {
  return (
    <Layout ctx={ctx} title={title} bare={bare}>
      <div class="card auth-card">
        <img class="auth-logo" src={ctx.assets['icon.svg'].url} alt="" width={40} height={40} />
        <h1>{heading}</h1>
        {children}
      </div>
    </Layout>
  );
}

/** Sends a page (a `<Layout>`) as HTML. */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send('<!doctype html>' + renderToString(page));
}

/** Sends a fragment (htmx swaps it into the page). */
export function sendFragment(reply: FastifyReply, fragment: VNode, status = 200): FastifyReply {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(renderToString(fragment));
}

/** True for a request htmx made (it wants a fragment). */
export const isHtmx = (request: FastifyRequest) => request.headers['hx-request'] === 'true';

export const dateStyleOf = (user: WebUser | undefined): DateStyle =>
  user ? { timeZone: user.timeZone, dateFormat: user.dateFormat } : DEFAULT_DATE_STYLE;
