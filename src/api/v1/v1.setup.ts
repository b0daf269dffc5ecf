/**
 * What both shapes of API v1 share (docs/api-v1.md): authentication (HTTP Basic with a user's credentials;
 * the paged shape also takes an organization token), the deprecation headers on every response, and
 * errors in the shape's own form (`{"detail": …}` paged, `{"message": …}` legacy) with 404 and 405
 * for unknown paths under `/api`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiV1Shape } from '../../config.ts';
import type { V1Caller } from '../../domain/actor.ts';
import { AppError, RetryLaterError } from '../../domain/errors.ts';
import { authorize, type Scope } from '../../domain/scopes.ts';
import type { Services } from '../../services/services.ts';
import { INVALID_CREDENTIALS } from '../../services/basic-auth.service.ts';
import { PageOutOfRangeError } from '../../domain/paging.ts';
import { registerCallerRateLimit } from '../../http/rate-limit.ts';
import { validationDetails, type SchemaError } from '../validation-messages.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An API v1 route: authenticated; a token caller needs `scope` (paged shape). */
    v1?: { scope: Scope };
  }
  interface FastifyRequest {
    v1Caller?: V1Caller;
  }
}

/** Answers a path no route matches (the app's own handler, for paths outside API v1). */
export type UnmatchedHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** API v2's error handler (its envelope). */
export type V2ErrorHandler = (
  err: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

export interface V1Options {
  services: Services;
  /** Answers unmatched paths under `/api/v2`, which this plugin's prefix also covers. */
  unmatched: UnmatchedHandler;
  /**
   * Answers the errors of those paths (a body over the size limit, malformed JSON: Fastify reads the
   * body before it knows no route matches), so that they come in API v2's envelope, not in v1's shape.
   */
  v2Errors: V2ErrorHandler;
}

/** A path of API v2 (`/api/v2`, `/api/v2/…`, `/api/v2?…`): this plugin's prefix covers its unmatched ones. */
const isV2Path = (url: string) => /^\/api\/v2(?:[/?]|$)/.test(url);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const PERMISSION_DENIED = 'You do not have permission to perform this action.';

/** The authenticated caller of a v1 route. */
export function callerOf(request: FastifyRequest): V1Caller {
  if (!request.v1Caller) throw new AppError('invalid_token', INVALID_CREDENTIALS);
  return request.v1Caller;
}

/** The authenticated user of a route that only users have (account subscriptions, reports). */
export function userOf(request: FastifyRequest): Extract<V1Caller, { kind: 'user' }> {
  const caller = callerOf(request);
  if (caller.kind !== 'user') throw new AppError('permission_denied', PERMISSION_DENIED);
  return caller;
}

/** PostgreSQL's "data exception" class: the client's input (bad encoding, out-of-range values). */
const isDataException = (err: unknown) => /^22[0-9A-Z]{3}$/.test(String((err as { code?: unknown }).code));

/** The status and message of a failure, as API v1 words them. */
function v1Error(err: FastifyError | AppError, shape: ApiV1Shape): { status: number; message: string } {
  if (err instanceof PageOutOfRangeError)
    return { status: 404, message: shape === 'paged' ? 'Invalid page.' : 'Not found.' };
  if (err instanceof AppError) {
    if (['permission_denied', 'read_only_token', 'missing_scope'].includes(err.code))
      return { status: 403, message: PERMISSION_DENIED };
    if (err.code === 'validation_error') {
      const details = Object.entries(err.details ?? {}).map(([k, v]) => `${k}: ${v.join(' ')}`);
      return { status: 400, message: details.length ? details.join('; ') : err.message };
    }
    return { status: err.status, message: err.message };
  }
  if (isDataException(err)) return { status: 400, message: 'Invalid request.' };
  if (err.validation) {
    const details = validationDetails(err.validation as SchemaError[], err.validationContext);
    return { status: 400, message: `${Object.values(details).flat().join('; ')}.` };
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
    return { status: err.statusCode, message: err.message };
  return { status: 500, message: 'Internal server error.' };
}

/**
 * Installs authentication, the per-caller rate limit, headers and error handling on a shape's
 * plugin (prefix `/api`).
 */
export async function setUpV1(
  app: FastifyInstance,
  { services, unmatched, v2Errors }: V1Options,
  shape: ApiV1Shape,
): Promise<void> {
  const body = (message: string) => (shape === 'paged' ? { detail: message } : { message });
  const successor = `${services.config.baseUrl ?? ''}/api/v2/docs/`;

  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config.v1;
    if (!route) return;
    const header = request.headers.authorization;
    if (shape === 'paged' && header && /^Bearer\s/i.test(header)) {
      let token;
      try {
        token = await services.tokens.authenticate(header);
      } catch {
        throw new AppError('invalid_token', 'Invalid token.');
      }
      authorize(token.mode, token.scopes, { scope: route.scope, write: false });
      request.v1Caller = { kind: 'token', token };
      return;
    }
    request.v1Caller = { kind: 'user', ...(await services.basicAuth.authenticate(header, request.ip)) };
  });

  // The same budget as API v2's per token (RATE_LIMIT_PER_MINUTE), per user or token.
  const max = services.config.rateLimitPerMinute;
  await registerCallerRateLimit(app, {
    max,
    key: (request) => {
      const caller = request.v1Caller;
      return caller?.kind === 'token' ? `token ${caller.token.id}` : `user ${caller?.userId ?? request.ip}`;
    },
    covers: (request) => Boolean(request.routeOptions.config.v1),
    message: (after) =>
      `Request was throttled: at most ${max} requests per minute. Expected available in ${after}.`,
  });

  app.addHook('onSend', async (request, reply) => {
    if (isV2Path(request.url)) return; // API v2's unmatched paths, answered through this plugin
    const origin = services.config.baseUrl ? '' : `${request.protocol}://${request.host}`;
    void reply.header('Deprecation', 'true');
    void reply.header('Link', `<${origin}${successor}>; rel="successor-version"`);
  });

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (isV2Path(request.url)) return v2Errors(err, request, reply);
    const { status, message } = v1Error(err, shape);
    if (status >= 500) request.log.error({ err }, 'request failed');
    if (status === 401) void reply.header('WWW-Authenticate', 'Basic realm="vulntrack"');
    if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
    return reply.status(status).send(body(message));
  });

  app.setNotFoundHandler((request, reply) => {
    if (isV2Path(request.url)) return unmatched(request, reply);
    const url = request.url.split('?')[0]!;
    const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url }));
    if (allowed.length)
      return reply
        .status(405)
        .header('Allow', allowed.join(', '))
        .send(body(`Method "${request.method}" not allowed.`));
    return reply.status(404).send(body('Not found.'));
  });
}
