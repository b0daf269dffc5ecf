/**
 * The web UI: server-rendered pages from the same process as the API. Pages call the services
 * directly (never API v2 over HTTP), so they get the same tenancy, validation and audit.
 *
 * Around every page: a server-side session (cookie `vt_session`: HttpOnly, SameSite=Lax, Secure when
 * the request came over TLS), CSRF protection on every form (a signed secret cookie and a token in the
 * form or, for htmx, in the `x-csrf-token` header), the headers of @fastify/helmet with a strict
 * Content-Security-Policy (no inline script, no inline style, nothing from another origin),
 * compressed responses, and pages of errors instead of JSON.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import session from '@fastify/session';
import csrf from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import formbody from '@fastify/formbody';
import compress from '@fastify/compress';
import { createHmac } from 'node:crypto';
import type { Services } from '../services/services.ts';
import { AppError, ERROR_CATALOG, RetryLaterError } from '../domain/errors.ts';
import { assetRoutes, loadAssetsOnce } from './assets.ts';
import { dateStyleOf, type PageContext } from './page.tsx';
import { ErrorPage } from './pages/error-page.tsx';
import { sendPage } from './page.tsx';
import { SessionStore } from './session-store.ts';
import { signInRoutes } from './pages/sign-in.routes.tsx';
import { homeRoutes } from './pages/home.routes.tsx';
import { accountRoutes } from './pages/account.routes.tsx';
import { cveListRoutes } from './pages/cves.routes.tsx';
import { vendorRoutes } from './pages/vendors.routes.tsx';
import { organizationPages } from './pages/organization.routes.tsx';
import { cveDetailRoutes } from './pages/cve-detail.routes.tsx';
import { statisticsRoutes } from './pages/statistics.routes.tsx';
import { feedRoutes } from './pages/feeds.routes.tsx';
import { projectRoutes } from './pages/projects.routes.tsx';

declare module 'fastify' {
  interface Session {
    /** The signed-in user. */
    userId?: string;
    /** The organization the user last looked at (the switcher's default). */
    orgName?: string;
  }
  interface FastifyRequest {
    /** Set for every web page before its handler runs. */
    page: PageContext;
  }
  interface FastifyContextConfig {
    /** A page anyone may open without signing in (sign-in, first administrator, links from emails). */
    public?: boolean;
  }
}

export type WebServices = Pick<
  Services,
  | 'config'
  | 'webSessions'
  | 'security'
  | 'accounts'
  | 'catalog'
  | 'organizations'
  | 'members'
  | 'tokens'
  | 'auditLog'
  | 'projects'
  | 'tracker'
  | 'projectMatch'
  | 'secret'
  | 'savedViews'
  | 'invitations'
  | 'statistics'
  | 'dashboards'
  | 'tags'
  | 'notifications'
  | 'automations'
  | 'reports'
  | 'deliveries'
  | 'events'
  | 'onboarding'
>;

export interface WebOptions {
  services: WebServices;
}

const SESSION_DAYS = 14;

/** A key of its own for each use of the server secret. */
const derive = (secret: string, purpose: string) =>
  createHmac('sha256', secret).update(purpose).digest('base64url');

export const webRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const assets = loadAssetsOnce();

  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    // Pages are only ever same-origin; a referrer would leak one-time links' secrets.
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(cookie, { secret: derive(services.secret, 'web-cookie') });
  await app.register(session, {
    secret: derive(services.secret, 'web-session'),
    cookieName: 'vt_session',
    saveUninitialized: false,
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', path: '/', maxAge: SESSION_DAYS * 86_400_000 },
    store: new SessionStore(services.webSessions),
  });
  await app.register(csrf, {
    cookieKey: 'vt_csrf',
    cookieOpts: { httpOnly: true, sameSite: 'strict', path: '/', signed: true, secure: 'auto' },
    getToken: (request) => {
      const body = request.body as Record<string, unknown> | undefined;
      const token =
        (body && typeof body === 'object' ? body._csrf : undefined) ?? request.headers['x-csrf-token'];
      return typeof token === 'string' ? token : undefined;
    },
  });
  await app.register(assetRoutes, { assets });

  // Who is asking, for every page; sign-in first for the pages that need it.
  app.addHook('preHandler', async (request, reply) => {
    if (request.url.startsWith('/assets/')) return;
    const userId = request.session.userId;
    const user = userId ? await services.webSessions.user(userId) : undefined;
    if (userId && !user) await request.session.destroy();
    const organizations = user ? await services.webSessions.organizationsOf(user.id) : [];
    const orgParam = (request.params as { org?: unknown } | undefined)?.org;
    const currentName = typeof orgParam === 'string' ? orgParam : request.session.orgName;
    request.page = {
      user,
      organizations,
      currentOrg: organizations.find((o) => o.name === currentName) ?? organizations[0],
      csrfToken: reply.generateCsrf(),
      assets,
      url: request.url,
      dateStyle: dateStyleOf(user),
    };
    if (!user && !request.routeOptions.config.public) {
      if (request.method === 'GET') return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`);
      throw new AppError('permission_denied', 'Sign in first.');
    }
  });

  // Every form is protected: a POST without the CSRF token of this browser is refused.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    app.csrfProtection(request, reply, done);
  });

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => renderError(err, request, reply));

  await app.register(signInRoutes, { services });
  await app.register(homeRoutes, { services });
  await app.register(accountRoutes, { services });
  await app.register(cveListRoutes, { services });
  await app.register(vendorRoutes, { services });
  await app.register(organizationPages, { services });
  await app.register(cveDetailRoutes, { services });
  await app.register(statisticsRoutes, { services });
  await app.register(projectRoutes, { services });
  await app.register(feedRoutes, { services });
};

/** The page of an error: its status and a sentence, never a stack trace. */
export function renderError(err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let message = 'Something went wrong on our side. It has been logged; please try again.';
  if (err instanceof AppError) {
    status = err.status;
    // A page's own sentence when it has one (an expired link, a CVE not in the catalog).
    message =
      err.code === 'not_found' && err.message === ERROR_CATALOG.not_found.message
        ? 'There is nothing here, or you cannot see it.'
        : err.message;
    if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
  } else if (err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET') {
    status = 403;
    message = 'This form has expired or was not sent from this site. Go back, reload the page and try again.';
  } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    status = 413;
    message = 'What you sent is too large.';
  } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    status = err.statusCode;
    message = 'The request was not understood.';
  }
  if (status >= 500) request.log.error({ err }, 'page failed');
  const ctx = request.page ?? fallbackContext(request);
  return sendPage(reply, ErrorPage({ ctx, status, message }), status);
}

/** The 404 page, for a path no route serves (the app's not-found handler sends people here). */
export function renderNotFound(request: FastifyRequest, reply: FastifyReply) {
  return renderError(new AppError('not_found'), request, reply);
}

/** A context for an error raised before the page hook ran (a bad URL, a body too large). */
function fallbackContext(request: FastifyRequest): PageContext {
  return {
    user: undefined,
    organizations: [],
    currentOrg: undefined,
    csrfToken: '',
    assets: loadAssetsOnce(),
    url: request.url,
    dateStyle: dateStyleOf(undefined),
  };
}
