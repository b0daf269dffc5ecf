/**
 * The HTTP server: one Fastify instance for the API and the web UI. What both share is here: the
 * instance's options (body limit, trusted proxies, schema validation), refusing malformed URLs,
 * request metrics, and what answers a path no route serves (405 with `Allow`; JSON under /api, the
 * web's 404 page elsewhere). The API's error envelope is the instance's error handler; the web UI
 * runs in a context of its own, with its sessions, CSRF, headers and error pages.
 */
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, ERROR_CATALOG } from './domain/errors.ts';
import type { Config } from './config.ts';
import type { Services } from './services/services.ts';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import helmet from '@fastify/helmet';
import { securityHeaders } from './http/security-headers.ts';
import { TokenBudget } from './http/rate-limit.ts';
import { answerClientError, parametersNotUtf8 } from './api/malformed-requests.ts';
import { apiErrorHandler, envelope, mountApi } from './api/api.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';
import { renderNotFound } from './web/error-page.tsx';
import { webRoutes } from './web/web.plugin.ts';

export interface AppOptions {
  services: Services;
  logger: FastifyBaseLogger | false;
  bodyLimit?: number;
}

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

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
  // Every answer, the 404 page and Swagger UI included, with the same security headers.
  await app.register(helmet, securityHeaders(options.services.config.oidc?.issuer));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? exact : coercing).compile(schema),
  );

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
  app.setErrorHandler(apiErrorHandler);

  // API v2 and the MCP server count a token's requests in one budget.
  const budget = new TokenBudget();
  await mountApi(app, { services: options.services, unmatched, budget });
  // The MCP server (docs/mcp.md): organization tokens, as API v2; in a context of its own.
  await app.register(mcpRoutes, { services: options.services, budget });
  // The web UI, in a context of its own (sessions, CSRF, its headers and error pages apply to it only).
  await app.register(webRoutes, { services: options.services });
  return app;
}
