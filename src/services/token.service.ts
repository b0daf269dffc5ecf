/**
 * Organization API tokens: create (the full token is returned once), list, revoke, and authenticate
 * a request. Revocation takes effect on the next request (no cache of token records).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { TokenRepository, type TokenRecord } from '../db/token.repository.ts';

export type { TokenRecord };
import { AuditRepository } from '../db/audit.repository.ts';
import type { Actor, TokenAuth } from '../domain/actor.ts';
import { AppError } from '../domain/errors.ts';
import { isScope } from '../domain/scopes.ts';
import {
  bearerCredential,
  generateToken,
  hashTokenSecret,
  parseToken,
  verifyTokenSecret,
  type TokenMode,
} from '../domain/tokens.ts';

/** last_used_at is written at most this often per token, so a busy token costs no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface CreatedToken {
  token: string;
  record: TokenRecord;
}

export class TokenService {
  private readonly tokens: TokenRepository;
  private readonly audit: AuditRepository;
  private readonly lastTouched = new Map<string, number>();

  constructor(
    db: Kysely<DB>,
    private readonly serverSecret: string,
  ) {
    this.tokens = new TokenRepository(db);
    this.audit = new AuditRepository(db);
  }

  /**
   * The caller of an `Authorization: Bearer …` header, and the catalog version as the token was
   * read; throws `invalid_token` for anything else.
   */
  async authenticate(header: string | undefined): Promise<TokenAuth & { catalogVersion: number }> {
    const credential = bearerCredential(header);
    const parts = credential ? parseToken(credential) : undefined;
    if (!parts) throw new AppError('invalid_token');
    const record = await this.tokens.findByTokenId(parts.tokenId);
    if (
      !record ||
      record.revokedAt ||
      !verifyTokenSecret(parts.secret, record.secretHash, this.serverSecret)
    ) {
      throw new AppError('invalid_token');
    }
    const now = Date.now();
    if (now - (this.lastTouched.get(record.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouched.set(record.id, now);
      // Bookkeeping must never fail or slow a request.
      this.tokens.touch(record.id).catch(() => this.lastTouched.delete(record.id));
    }
    return {
      actor: { type: 'token', id: record.tokenId, name: record.name },
      id: record.id,
      tokenId: record.tokenId,
      organizationId: record.organizationId,
      organizationName: record.organizationName,
      mode: record.mode,
      scopes: record.scopes,
      catalogVersion: Number(record.catalogVersion),
    };
  }

  async create(
    organizationId: string,
    input: { name: string; description?: string; mode: TokenMode; scopes: string[] },
    actor: Actor,
  ): Promise<CreatedToken> {
    const details: Record<string, string[]> = {};
    const name = input.name.trim();
    if (!name || name.length > 100) details.name = ['1 to 100 characters'];
    if ((input.description ?? '').length > 1000) details.description = ['at most 1000 characters'];
    if (input.mode !== 'read' && input.mode !== 'write') details.mode = ['read or write'];
    const unknown = input.scopes.filter((s) => !isScope(s));
    if (unknown.length) details.scopes = unknown.map((s) => `unknown scope "${s}"`);
    if (Object.keys(details).length) throw new AppError('validation_error', undefined, details);
    input = { ...input, name };
    const { tokenId, secret, token } = generateToken();
    await this.tokens.create({
      organizationId,
      tokenId,
      secretHash: hashTokenSecret(secret, this.serverSecret),
      name: input.name,
      description: input.description ?? '',
      mode: input.mode,
      scopes: [...new Set(input.scopes)].sort(),
      createdBy: actor.type === 'user' ? actor.id : null,
    });
    const { catalogVersion: _, ...record } = (await this.tokens.findByTokenId(tokenId))!;
    await this.audit.record({
      organizationId,
      actor,
      action: 'token.create',
      resourceType: 'token',
      resourceId: tokenId,
      resourceName: input.name,
      changes: { mode: input.mode, scopes: record.scopes },
    });
    return { token, record };
  }

  list(organizationId: string): Promise<TokenRecord[]> {
    return this.tokens.listForOrganization(organizationId);
  }

  async revoke(organizationId: string, tokenId: string, actor: Actor): Promise<void> {
    const revoked = await this.tokens.revoke(
      organizationId,
      tokenId,
      actor.type === 'user' ? actor.id : null,
    );
    if (!revoked) throw new AppError('not_found');
    await this.audit.record({
      organizationId,
      actor,
      action: 'token.revoke',
      resourceType: 'token',
      resourceId: tokenId,
    });
  }
}
