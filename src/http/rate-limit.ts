/**
 * The per-caller request budget both APIs and the MCP endpoint enforce (RATE_LIMIT_PER_MINUTE):
 * @fastify/rate-limit after authentication (so the key is the caller), `429 rate_limited` with
 * `Retry-After` and the `RateLimit-*` headers; each API words the refusal in its own error shape.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';

export interface CallerRateLimit {
  /** Requests per minute per caller. */
  max: number;
  /** The caller of an authenticated request. */
  key(request: FastifyRequest): string;
  /** Whether the request is on a route the limit covers (authenticated routes). */
  covers(request: FastifyRequest): boolean;
  /** The refusal's message, given when to come back (`1 minute`, `12 seconds`). */
  message(after: string): string;
}

export async function registerCallerRateLimit(app: FastifyInstance, limit: CallerRateLimit): Promise<void> {
  await app.register(rateLimit, {
    hook: 'preHandler',
    max: limit.max,
    timeWindow: 60_000,
    keyGenerator: limit.key,
    allowList: (request) => !limit.covers(request),
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => new AppError('rate_limited', limit.message(context.after)),
  });
}
