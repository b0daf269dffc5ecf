/** Signing a user in: a new session, and where to go next. */
import type { FastifyRequest } from 'fastify';

/** Starts a signed-in session for the user (a new session id: no fixation). */
export async function startSession(request: FastifyRequest, userId: string): Promise<void> {
  await request.session.regenerate();
  request.session.userId = userId;
}

/** A control character or a backslash: browsers drop the first and read the second as `/`. */
const unsafe = (c: string) => c <= '\u001f' || c === '\u007f' || c === '\\';

/** Any base: only the origin matters, to tell a path of this site from anything else. */
const HERE = 'http://vulntrack.invalid';

/**
 * A `next` that stays on this site: a path of it, as the browser would resolve it. A value with a
 * control character or a backslash (browsers drop a tab or a newline and read `\` as `/`, so
 * `/\t/evil.example` goes there), a scheme-relative `//host`, or an absolute URL gives `fallback`.
 */
export function localPath(next: unknown, fallback = '/'): string {
  if (typeof next !== 'string' || !next.startsWith('/') || [...next].some(unsafe)) return fallback;
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return fallback;
  }
  if (url.origin !== HERE) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
