/** @fastify/session's store over the database (WebSessionService): sessions outlive a restart and end everywhere at sign-out. */
import type { Session } from 'fastify';
import type { WebSessionService } from '../services/web-session.service.ts';

type Callback = (err?: unknown) => void;

const FALLBACK_LIFETIME_MS = 86_400_000;

export class SessionStore {
  constructor(private readonly sessions: WebSessionService) {}

  set(id: string, session: Session, callback: Callback): void {
    const data = JSON.parse(JSON.stringify(session)) as Record<string, unknown>;
    const expires = session.cookie.expires
      ? new Date(session.cookie.expires)
      : new Date(Date.now() + FALLBACK_LIFETIME_MS);
    this.sessions.saveSession(id, data, expires).then(() => callback(), callback);
  }

  get(id: string, callback: (err: unknown, result?: Session | null) => void): void {
    this.sessions.loadSession(id).then(
      (data) => callback(null, (data as Session | undefined) ?? null),
      (err: unknown) => callback(err),
    );
  }

  destroy(id: string, callback: Callback): void {
    this.sessions.destroySession(id).then(() => callback(), callback);
  }
}
