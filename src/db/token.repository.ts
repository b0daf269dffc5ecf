/** API tokens of organizations. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { TokenMode } from '../domain/tokens.ts';
import { PreparedQuery } from './prepared.ts';
import { CATALOG_VERSION } from './catalog-version.ts';

export interface TokenRecord {
  id: string;
  organizationId: string;
  organizationName: string;
  tokenId: string;
  secretHash: string;
  name: string;
  description: string;
  mode: TokenMode;
  scopes: string[];
  createdBy: string | null;
  createdByName: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export class TokenRepository {
  /** Every API request's lookup: a prepared statement (see prepared.ts). */
  private readonly byTokenId: PreparedQuery<TokenRecord & { catalogVersion: number }, [tokenId: string]>;

  constructor(private readonly db: Kysely<DB>) {
    this.byTokenId = new PreparedQuery(
      db,
      this.base().select(CATALOG_VERSION.as('catalogVersion')).where('t.token_id', '=', ''),
    );
  }

  private base() {
    return this.db
      .selectFrom('api_token as t')
      .innerJoin('organization as o', 'o.id', 't.organization_id')
      .leftJoin('app_user as u', 'u.id', 't.created_by')
      .select([
        't.id',
        't.organization_id as organizationId',
        'o.name as organizationName',
        't.token_id as tokenId',
        't.secret_hash as secretHash',
        't.name',
        't.description',
        't.mode',
        't.scopes',
        't.created_by as createdBy',
        'u.username as createdByName',
        't.created_at as createdAt',
        't.last_used_at as lastUsedAt',
        't.revoked_at as revokedAt',
      ]);
  }

  /**
   * A token by its id, with the catalog version at that moment (read in the same statement, so a
   * request knows which version its cached answers must be of without another round trip).
   */
  findByTokenId(tokenId: string): Promise<(TokenRecord & { catalogVersion: number }) | undefined> {
    return this.byTokenId.executeTakeFirst(tokenId);
  }

  listForOrganization(organizationId: string): Promise<TokenRecord[]> {
    return this.base()
      .where('t.organization_id', '=', organizationId)
      .orderBy('t.created_at', 'desc')
      .execute();
  }

  async create(values: {
    organizationId: string;
    tokenId: string;
    secretHash: string;
    name: string;
    description: string;
    mode: TokenMode;
    scopes: string[];
    createdBy: string | null;
  }): Promise<string> {
    const row = await this.db
      .insertInto('api_token')
      .values({
        organization_id: values.organizationId,
        token_id: values.tokenId,
        secret_hash: values.secretHash,
        name: values.name,
        description: values.description,
        mode: values.mode,
        scopes: values.scopes,
        created_by: values.createdBy,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Revokes a live token; false when there is none by that id in the organization. */
  async revoke(organizationId: string, tokenId: string, revokedBy: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('api_token')
      .set({ revoked_at: sql`now()`, revoked_by: revokedBy })
      .where('organization_id', '=', organizationId)
      .where('token_id', '=', tokenId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Revokes every live token `userId` created in the organization; the tokens revoked. */
  async revokeCreatedBy(
    organizationId: string,
    userId: string,
    revokedBy: string | null,
    tx: Kysely<DB> | Transaction<DB> = this.db,
  ): Promise<{ tokenId: string; name: string }[]> {
    return tx
      .updateTable('api_token')
      .set({ revoked_at: sql`now()`, revoked_by: revokedBy })
      .where('organization_id', '=', organizationId)
      .where('created_by', '=', userId)
      .where('revoked_at', 'is', null)
      .returning(['token_id as tokenId', 'name'])
      .execute();
  }

  async touch(id: string): Promise<void> {
    await this.db
      .updateTable('api_token')
      .set({ last_used_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /**
   * The creator of a live token, when that user is a server administrator: who may
   * change what every organization shares, such as the catalog's vendor aliases.
   */
  async administratorCreator(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('api_token')
      .innerJoin('app_user', 'app_user.id', 'api_token.created_by')
      .select('app_user.username')
      .where('api_token.id', '=', id)
      .where('api_token.revoked_at', 'is', null)
      .where('app_user.is_admin', '=', true)
      .executeTakeFirst();
    return row?.username;
  }
}
