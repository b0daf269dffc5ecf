/**
 * The caller of an API v2 route: the requirement a route declares (`config.auth`) and the token the
 * v2 plugin's hook authenticated for it.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { Requirement } from '../../domain/scopes.ts';
import type { TokenAuth } from '../../domain/actor.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route requires; routes without it are public (documentation). */
    auth?: Requirement;
    /** A route without a token that still counts against the request budget, per client address. */
    limitByAddress?: boolean;
  }
  interface FastifyRequest {
    auth?: TokenAuth;
  }
}

/** The authenticated caller of a route that declared `config.auth`. */
export function authOf(request: FastifyRequest): TokenAuth {
  if (!request.auth) throw new AppError('invalid_token');
  return request.auth;
}
