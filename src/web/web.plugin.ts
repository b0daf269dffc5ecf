/**
 * The web UI: server-rendered pages from the same process as the API. Pages call the services
 * directly (never API v2 over HTTP), so they get the same tenancy, validation and audit.
 *
 * Around every page: a server-side session (cookie `vt_session`: HttpOnly, SameSite=Lax, Secure when
 * the request came over TLS), CSRF protection on every form (a signed secret cookie and a token in the
 * form or, for htmx, in the `x-csrf-token` header), compressed responses, and pages of errors
 * instead of JSON. The security headers (a strict Content-Security-Policy among them) are the
 * server's, on every answer (src/http/security-headers.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import cookie from '@fastify/cookie';
import session from '@fastify/session';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import compress from '@fastify/compress';
import { createHmac } from 'node:crypto';
import type { WebOptions } from './kit/context.ts';
import { AppError } from '../domain/errors.ts';
import { assetRoutes, loadAssetsOnce } from './kit/assets.ts';
import { dateStyleOf } from './kit/layout.tsx';
import { renderError } from './error-page.tsx';
import { SessionStore } from './session-store.ts';
import { accountPages } from './account/index.ts';
import { adminPages } from './admin/index.ts';
import { catalogPages } from './catalog/index.ts';
import { emailLinkPages } from './email-links/index.ts';
import { organizationPages } from './org/index.ts';
import { projectPages } from './project/index.ts';

const SESSION_DAYS = 14;

/** A key of its own for each use of the server secret. */
const derive = (secret: string, purpose: string) =>
  createHmac('sha256', secret).update(purpose).digest('base64url');

export const webRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const assets = loadAssetsOnce();

  await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // File uploads (an SBOM on the Inventory tab): read into the body before the CSRF check below, so
  // the form's token is found as in any form. No page takes a file unless its route's
  // `config.multipartOptions` raises `files` (and the size it accepts).
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { files: 0, fileSize: 0, fields: 20, fieldSize: 64 * 1024, parts: 21 },
  });
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
      // One small read kept 30 s by the service: the banner of every page, the line of a few.
      freshness: user ? await services.freshness.current() : undefined,
    };
    if (!user && !request.routeOptions.config.public) {
      if (request.method === 'GET') return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`);
      throw new AppError('permission_denied', 'Sign in first.');
    }
  });

  // Every form is protected: a POST without the CSRF token of this browser is refused.
  app.addHook('preValidation', (request, reply, done) => {
    // PostgreSQL stores no NUL character: a clear 400 here, never a database error later.
    if (hasNul(request.body) || hasNul(request.query)) return done(NUL_REFUSED());
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    // A form authorized by its link's own token (an email's unsubscribe) has no session to protect.
    if (request.routeOptions.config.linkToken) return done();
    app.csrfProtection(request, reply, done);
  });

  app.setErrorHandler(renderError);

  await app.register(accountPages, { services });
  await app.register(catalogPages, { services });
  await app.register(organizationPages, { services });
  await app.register(projectPages, { services });
  await app.register(emailLinkPages, { services });
  await app.register(adminPages, { services });
};

const NUL_REFUSED = () =>
  new AppError(
    'validation_error',
    'What you sent contains a NUL character, which cannot be stored. Remove it and try again.',
  );

/** True when a form body or query (strings, arrays of strings; not files) holds a NUL character anywhere. */
function hasNul(input: unknown): boolean {
  if (typeof input === 'string') return input.includes('\u0000');
  // An uploaded file is the service's to read (an SBOM parser says what it refuses).
  if (Buffer.isBuffer(input)) return false;
  if (Array.isArray(input)) return input.some(hasNul);
  if (input && typeof input === 'object')
    return Object.entries(input).some(([key, value]) => key.includes('\u0000') || hasNul(value));
  return false;
}
