/** The answer's status to an account form the service refused. */
import type { FastifyReply } from 'fastify';
import { RetryLaterError } from '../../domain/errors.ts';
import { formStatusOf } from '../kit/input.ts';

/**
 * The status of a refused form (`formStatusOf`: 400, 409, 429, 503…), with `Retry-After` when the
 * service says when to try again (too many attempts).
 */
export function refusedStatus(err: unknown, reply: FastifyReply): number {
  if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
  return formStatusOf(err);
}
