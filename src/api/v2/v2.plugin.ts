/**
 * API v2 (`/api/v2`, organization tokens only). Every route declares what it requires in
 * `config.auth`; one hook checks it in the order of docs/api-v2.md: a valid token (401) → a path naming
 * another organization is not found (404, existence is never disclosed) → a `read` token may not
 * write (403 `read_only_token`) → the scope (403 `missing_scope`). Rate limits are per token.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { authorize, type Requirement } from '../../domain/scopes.ts';
import type { Services } from '../../services/services.ts';
import { registerCallerRateLimit, type TokenBudget } from '../../http/rate-limit.ts';
import { ErrorEnvelope } from './schemas.ts';
import './auth.ts';
import { cveRoutes } from './cves.routes.ts';
import { vendorRoutes } from './vendors.routes.ts';
import { weaknessRoutes } from './weaknesses.routes.ts';
import { organizationRoutes } from './organizations.routes.ts';
import { memberRoutes } from './members.routes.ts';
import { auditLogRoutes } from './audit-logs.routes.ts';
import { projectRoutes } from './projects.routes.ts';
import { subscriptionRoutes } from './subscriptions.routes.ts';
import { keywordRoutes } from './keywords.routes.ts';
import { trackerRoutes } from './tracker.routes.ts';
import { projectMatchRoutes } from './project-match.routes.ts';
import { notificationRoutes } from './notifications.routes.ts';
import { automationRoutes } from './automations.routes.ts';
import { invitationRoutes } from './invitations.routes.ts';
import { vendorAliasRoutes } from './vendor-aliases.routes.ts';
import { matchRoutes } from './match.routes.ts';
import { inventoryRoutes } from './inventories.routes.ts';

/** A v2 route and what it requires: the input of the OpenAPI descriptions and of the route-walking tests. */
export interface V2Route {
  method: string;
  url: string;
  auth: Requirement;
}

export const v2Routes: FastifyPluginAsync<{
  services: Services;
  routeTable?: V2Route[];
  /** The token budget shared with `/mcp` (else API v2 counts alone). */
  budget?: TokenBudget;
}> = async (app, { services, routeTable, budget }) => {
  app.addSchema(ErrorEnvelope);

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routeTable?.push({ method, url: route.url, auth });
    // Say in the OpenAPI document what each operation requires.
    const needs = [auth.scope, ...(auth.anyOf ?? [])].map((s) => `\`${s}\``).join(' or ');
    const note = `Requires a token with ${needs}${auth.write ? ' and write access' : ''}.`;
    route.schema = {
      ...route.schema,
      description: route.schema?.description ? `${route.schema.description}\n\n${note}` : note,
    };
  });

  app.addHook('onRequest', async (request) => {
    const requirement = request.routeOptions.config.auth;
    if (!requirement) return;
    const auth = await services.tokens.authenticate(request.headers.authorization);
    const org = (request.params as { org?: string } | undefined)?.org;
    if (org !== undefined && org !== auth.organizationName) throw new AppError('not_found');
    authorize(auth.mode, auth.scopes, requirement);
    request.auth = auth;
    request.catalogVersion = auth.catalogVersion;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.responseCacheKey !== undefined && reply.statusCode === 200 && typeof payload === 'string')
      app.responseCache.keep(request.responseCacheKey, payload);
    return payload;
  });

  const max = services.config.rateLimitPerMinute;
  await registerCallerRateLimit(app, {
    max,
    key: (request) => request.auth?.id ?? request.ip,
    covers: (request) =>
      Boolean(request.routeOptions.config.auth) || request.routeOptions.config.limitByAddress === true,
    message: (after) => `Too many requests: at most ${max} per minute for a token; retry in ${after}.`,
    budget,
  });

  const register = (plugin: FastifyPluginAsync<{ services: Services }>) => app.register(plugin, { services });
  await register(cveRoutes);
  await register(vendorRoutes);
  await register(weaknessRoutes);
  await register(organizationRoutes);
  await register(memberRoutes);
  await register(auditLogRoutes);
  await register(projectRoutes);
  await register(subscriptionRoutes);
  await register(keywordRoutes);
  await register(trackerRoutes);
  await register(projectMatchRoutes);
  await register(notificationRoutes);
  await register(automationRoutes);
  await register(invitationRoutes);
  await register(vendorAliasRoutes);
  await register(matchRoutes);
  await register(inventoryRoutes);
};
