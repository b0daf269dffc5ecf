/**
 * What several commands read the same way: a password from standard input, a user named on the
 * command line, and the member an administrative change is credited to.
 */
import fs from 'node:fs';
import { SYSTEM_ACTOR, type Actor } from '../domain/actor.ts';
import { AppError } from '../domain/errors.ts';
import type { Services } from '../services/services.ts';
import { UsageError } from './output.ts';

/** The password given on standard input, without its final line break. */
export const passwordFromStdin = (): string => fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '');

/** What `work` gives; its not_found becomes the usage error `no user named "<username>"`. */
export async function orNoSuchUser<T>(username: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found')
      throw new UsageError(`no user named "${username}"`);
    throw err;
  }
}

/**
 * The actor of an administrative command on an organization: the named user when given (who must
 * be a joined member, as the audit log will credit them), else the system.
 */
export async function actorFor(
  services: Services,
  org: { id: string; name: string },
  username: string | undefined,
): Promise<Actor> {
  if (!username) return SYSTEM_ACTOR;
  try {
    return await orNoSuchUser(username, services.accounts.memberActor(org.id, username));
  } catch (err) {
    if (err instanceof AppError && err.code === 'permission_denied')
      throw new UsageError(`"${username}" is not a member of ${org.name}; name one of its members`);
    throw err;
  }
}
