/**
 * The per-caller request budget both APIs and the MCP endpoint enforce (RATE_LIMIT_PER_MINUTE):
 * @fastify/rate-limit after authentication (so the key is the caller), `429 rate_limited` with
 * `Retry-After` and the `RateLimit-*` headers; each API words the refusal in its own error shape.
 * API v2 and `/mcp` count a token's requests in one budget (`TokenBudget`).
 */
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
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
  /** Counts shared with other registrations (else this registration counts alone). */
  budget?: TokenBudget | undefined;
}

/** Keys kept before expired windows are dropped (and, if still over, the oldest). */
const BUDGET_KEYS_MAX = 10_000;

/**
 * A fixed-window request count per key that several rate-limit registrations share, so that a
 * token's requests to API v2 and to `/mcp` come out of one budget (one per server instance).
 */
export class TokenBudget implements FastifyRateLimitStore {
  private readonly windows = new Map<string, { current: number; start: number }>();

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.start + timeWindow <= now) {
      window = { current: 0, start: now };
      this.windows.delete(key);
      this.windows.set(key, window);
      if (this.windows.size > BUDGET_KEYS_MAX) this.prune(now, timeWindow);
    }
    window.current += 1;
    callback(null, { current: window.current, ttl: window.start + timeWindow - now });
  }

  child(): FastifyRateLimitStore {
    return this;
  }

  private prune(now: number, timeWindow: number): void {
    for (const [key, w] of this.windows) if (w.start + timeWindow <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= BUDGET_KEYS_MAX) break;
      this.windows.delete(key);
    }
  }
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
    // The plugin constructs its store; a constructor that returns an object gives that object.
    ...(limit.budget
      ? {
          store: function shared() {
            return limit.budget;
          } as unknown as FastifyRateLimitStoreCtor,
        }
      : {}),
  });
}
