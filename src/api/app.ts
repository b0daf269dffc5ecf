/**
 * The HTTP application: Fastify with one error handler that turns every failure into the error
 * envelope (never a stack trace), and the routes of each area mounted under their prefixes.
 */
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, ERROR_CATALOG, type ErrorCode } from '../domain/errors.ts';
import type { Config } from '../config.ts';
import type { Services } from '../services/services.ts';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { healthRoutes } from './health.routes.ts';
import { emailLinkRoutes } from './email-links.routes.ts';
import { v2Routes, type V2Route } from './v2/v2.plugin.ts';
import { ResponseCache } from './v2/response-cache.ts';
import { validationDetails, type SchemaError } from './validation-messages.ts';
import { answerClientError, parametersNotUtf8 } from './malformed-requests.ts';
import { pagedV1Routes } from './v1/paged/paged.plugin.ts';
import { legacyV1Routes } from './v1/legacy/legacy.plugin.ts';
import { renderNotFound, webRoutes } from '../web/web.plugin.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API v2 route with its requirement (for documentation and tests). */
    v2RouteTable: V2Route[];
  }
}

export interface AppOptions {
  services: Services;
  logger: FastifyBaseLogger | false;
  bodyLimit?: number;
}

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function envelope(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
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

/** TRUST_PROXY as Fastify takes it: a number of hops trusts the nearest `hops` proxies. */
function trustProxyOption(
  setting: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

export async function buildApp(options: AppOptions) {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // request.ip (rate limits, logs) is the client's address behind the proxies named here.
    trustProxy: trustProxyOption(options.services.config.trustProxy),
    // Unknown fields are rejected by the schemas, not silently dropped.
    // Per-request access lines only at debug level: at info they cost throughput and say little.
    logController: new LogController({
      disableRequestLogging: !options.logger || !['debug', 'trace'].includes(options.logger.level),
    }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // What Node's HTTP parser refuses (431 for an over-long URL or header) never reaches Fastify.
    clientErrorHandler: answerClientError,
    // A URL the router cannot read (invalid percent-encoding or UTF-8, a path parameter over 200
    // characters) is refused before any route: still in the error form of the API it was meant for.
    frameworkErrors: (error, request, rawReply) => {
      const reply = rawReply as unknown as FastifyReply;
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is longer than 200 characters.'
          : 'The URL is not valid (bad percent-encoding or invalid UTF-8).';
      const path = request.url.split('?')[0] ?? '';
      if (/^\/api(\/|$)/.test(path) && !/^\/api\/v2(\/|$)/.test(path)) {
        const shape = options.services.config.apiV1Shape;
        void reply.status(400).send(shape === 'paged' ? { detail: message } : { message });
        return;
      }
      void reply
        .status(400)
        .send(envelope('validation_error', 'Validation error.', { details: { path: [message] } }));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings and path parameters are text: coerce them to the schema's types. Bodies are JSON and
  // must already have the right types (`{"name": 42}` is an error, not a rename to "42").
  const coercing = new Ajv({
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    // Errors carry their schema, so that a message can say what the schema allows.
    verbose: true,
  });
  const exact = new Ajv({
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    // Errors carry their schema, so that a message can say what the schema allows.
    verbose: true,
  });
  for (const ajv of [coercing, exact]) addFormats(ajv);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? exact : coercing).compile(schema),
  );

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    const appError = err instanceof AppError ? err : fromFastifyError(err);
    if (appError.code === 'internal_error') request.log.error({ err }, 'request failed');
    const extra: Record<string, unknown> = {};
    if (appError.details) extra.details = appError.details;
    if (appError.requiredScope) extra.required_scope = appError.requiredScope;
    if (appError.code === 'invalid_token') void reply.header('WWW-Authenticate', 'Bearer');
    return reply.status(appError.status).send(envelope(appError.code, appError.message, extra));
  });
  // NUL characters cannot be stored or matched by PostgreSQL: refuse them where they come in. Nor is
  // a query string that is not UTF-8 read as U+FFFD and searched: it is a 400, as in a path.
  app.addHook('onRequest', async (request) => {
    if (/%00/.test(request.url)) {
      throw new AppError('validation_error', undefined, { request: ['the URL contains a NUL character'] });
    }
    const garbled = parametersNotUtf8(request.url);
    if (garbled.length) {
      throw new AppError(
        'validation_error',
        undefined,
        Object.fromEntries(
          garbled.map((name) => [name, [`${name} is not valid UTF-8 text once percent-decoded`]]),
        ),
      );
    }
  });
  // Request metrics by route pattern, never the raw URL (ids in paths would explode the label set).
  app.addHook('onResponse', async (request, reply) => {
    options.services.metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  // A path that exists under other methods is a 405 with `Allow`, not a 404.
  const unmatched = (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url.split('?')[0]!;
    const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url }));
    if (allowed.length) {
      return reply
        .status(405)
        .header('Allow', allowed.join(', '))
        .send(envelope('method_not_allowed', ERROR_CATALOG.method_not_allowed.message));
    }
    // Outside the API, a person asked: a page, not JSON.
    if (!/^\/api(\/|$)/.test(url)) return renderNotFound(request, reply);
    return reply.status(404).send(envelope('not_found', ERROR_CATALOG.not_found.message));
  };
  app.setNotFoundHandler(unmatched);

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
  await app.register(swaggerUi, { routePrefix: '/api/v2/docs' });
  app.get('/api/v2/schema', { schema: { hide: true } }, () => app.swagger());

  await app.register(healthRoutes, { services: options.services });
  await app.register(emailLinkRoutes, { services: options.services });
  const routeTable: V2Route[] = [];
  app.decorate('v2RouteTable', routeTable);
  app.decorate('responseCache', new ResponseCache(options.services.config.apiResponseCacheBytes));
  await app.register(v2Routes, { prefix: '/api/v2', services: options.services, routeTable });
  // API v1 (deprecated) under /api, in the shape the deployment serves; it answers unmatched /api/v2
  // paths through `unmatched`, as its prefix covers them.
  const v1 = options.services.config.apiV1Shape === 'paged' ? pagedV1Routes : legacyV1Routes;
  await app.register(v1, { prefix: '/api', services: options.services, unmatched });
  // The web UI, in a context of its own (sessions, CSRF, its headers and error pages apply to it only).
  await app.register(webRoutes, { services: options.services });
  return app;
}
