/** Signing a user in: a new session, and where to go next. */
import type { FastifyRequest } from 'fastify';

/** Starts a signed-in session for the user (a new session id: no fixation). */
export async function startSession(request: FastifyRequest, userId: string): Promise<void> {
  await request.session.regenerate();
  request.session.userId = userId;
}

/** A `next` that stays on this site (a path, never `//host` or a URL). */
export function localPath(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : fallback;
}
