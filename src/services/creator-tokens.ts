/**
 * When a person leaves an organization (removed from it, or their account disabled), the API tokens
 * they created there stop working: a departed owner's write token could otherwise invite them back.
 * One rule for both ways of leaving, so each revoked token gets the same audit entry.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuditRepository } from '../db/audit.repository.ts';
import type { TokenRepository } from '../db/token.repository.ts';
import type { Actor } from '../domain/actor.ts';

/**
 * Revokes every live token `userId` created in the organization, with one `token.revoke` audit entry
 * each saying `why` ("its creator … was removed"); the number revoked. Runs in the caller's transaction.
 */
export async function revokeTokensOfCreator(
  repos: { tokens: TokenRepository; audit: AuditRepository },
  tx: Kysely<DB> | Transaction<DB>,
  revocation: { organizationId: string; userId: string; actor: Actor; why: string },
): Promise<number> {
  const { organizationId, userId, actor, why } = revocation;
  const revoked = await repos.tokens.revokeCreatedBy(
    organizationId,
    userId,
    actor.type === 'user' ? actor.id : null,
    tx,
  );
  await repos.audit.recordMany(
    revoked.map((t) => ({
      organizationId,
      actor,
      action: 'token.revoke',
      resourceType: 'token',
      resourceId: t.tokenId,
      resourceName: t.name,
      changes: { revoked: { old: null, new: why } },
    })),
    tx,
  );
  return revoked.length;
}
