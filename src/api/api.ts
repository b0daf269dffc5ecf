/**
 * The API: its error envelope `{error: {code, message, details?}}` (the one handler that turns every
 * failure into it, never a stack trace), the OpenAPI document and Swagger UI, health, API v2 and the
 * deprecated API v1, mounted on the server's instance (src/server.ts).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { AppError, RetryLaterError, type ErrorCode } from '../domain/errors.ts';
import type { Services } from '../services/services.ts';
import type { TokenBudget } from '../http/rate-limit.ts';
import { healthRoutes } from './health.routes.ts';
import { legacyV1Routes } from './v1/legacy/legacy.plugin.ts';
import { pagedV1Routes } from './v1/paged/paged.plugin.ts';
import { ResponseCache } from './v2/response-cache.ts';
import { v2Routes, type V2Route } from './v2/v2.plugin.ts';
import { validationDetails, type SchemaError } from './validation-messages.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API v2 route with its requirement (for documentation and tests). */
    v2RouteTable: V2Route[];
  }
}

/** The error envelope of every API answer that is not a success. */
export function envelope(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
  return { error: { code, message, ...extra } };
}

/** PostgreSQL's "data exception" class (bad encoding, NUL bytes, out-of-range values): the client's input. */
const isDataException = (err: unknown) =>
  typeof (err as { code?: unknown }).code === 'string' &&
  /^22[0-9A-Z]{3}$/.test((err as { code: string }).code);

/** Maps Fastify's own errors (validation, body parsing, size) to catalog codes. */
function fromFastifyError(err: FastifyError): AppError {
  if (isDataException(err))
    return new AppError('validation_error', undefined, {
      request: ['contains a value the database cannot store (such as a NUL character)'],
    });
  if (err.validation) {
    return new AppError(
      'validation_error',
      undefined,
      validationDetails(err.validation as SchemaError[], err.validationContext),
    );
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('payload_too_large');
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new AppError('unsupported_media_type');
  // A file outside the served folder (`/api/v2/docs/static/../…`) is not there, as far as anyone asks.
  if (err.statusCode === 403 || err.statusCode === 404) return new AppError('not_found');
  if (err.statusCode === 405) return new AppError('method_not_allowed');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError('validation_error', undefined, { request: [err.message] });
  }
  return new AppError('internal_error');
}

/** The error handler of the API: every failure as the envelope, with its status. */
export function apiErrorHandler(err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  const appError = err instanceof AppError ? err : fromFastifyError(err);
  if (appError.code === 'internal_error') request.log.error({ err }, 'request failed');
  const extra: Record<string, unknown> = {};
  if (appError.details) extra.details = appError.details;
  if (appError.requiredScope) extra.required_scope = appError.requiredScope;
  if (appError.code === 'invalid_token') void reply.header('WWW-Authenticate', 'Bearer');
  if (appError instanceof RetryLaterError)
    void reply.header('Retry-After', String(appError.retryAfterSeconds));
  return reply.status(appError.status).send(envelope(appError.code, appError.message, extra));
}

/**
 * Mounts the API on the server's instance (not in a context of its own: the OpenAPI document and the
 * route table are the instance's). `unmatched` answers a path no route serves (API v1 covers /api).
 */
export async function mountApi(
  app: FastifyInstance,
  {
    services,
    unmatched,
    budget,
  }: {
    services: Services;
    unmatched: (request: FastifyRequest, reply: FastifyReply) => unknown;
    /** The per-token request budget API v2 shares with `/mcp`. */
    budget?: TokenBudget;
  },
) {
  await app.register(swagger, {
    hideUntagged: true,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'vulntrack API v2',
        version: '2.0.0',
        description:
          'Organization API tokens only: `Authorization: Bearer vtr_org.<token_id>.<secret>`. ' +
          'Errors are `{error: {code, message, details?, required_scope?}}`.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/v2/docs', staticCSP: true });
  app.get('/api/v2/schema', { schema: { hide: true } }, () => app.swagger());

  await app.register(healthRoutes, { services: services });
  const routeTable: V2Route[] = [];
  app.decorate('v2RouteTable', routeTable);
  app.decorate('responseCache', new ResponseCache(services.config.apiResponseCacheBytes));
  await app.register(v2Routes, { prefix: '/api/v2', services: services, routeTable, budget });
  // API v1 (deprecated) under /api, in the shape the deployment serves; it answers unmatched /api/v2
  // paths through `unmatched`, as its prefix covers them.
  const v1 = services.config.apiV1Shape === 'paged' ? pagedV1Routes : legacyV1Routes;
  await app.register(v1, { prefix: '/api', services: services, unmatched, v2Errors: apiErrorHandler });
}
