/** Saved views of the web UI's CVE list: a user's own, and those shared with an organization. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface SavedViewRow {
  id: string;
  user_id: string;
  organization_id: string | null;
  name: string;
  query: string;
  created_at: Date;
}

const COLUMNS = ['id', 'user_id', 'organization_id', 'name', 'query', 'created_at'] as const;

export class SavedViewRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The user's private views, and the views of the organizations among `organizationIds`, by name. */
  visibleTo(userId: string, organizationIds: string[]): Promise<SavedViewRow[]> {
    return this.db
      .selectFrom('saved_view')
      .select(COLUMNS)
      .where((eb) =>
        eb.or([
          eb.and([eb('user_id', '=', userId), eb('organization_id', 'is', null)]),
          ...(organizationIds.length ? [eb('organization_id', 'in', organizationIds)] : []),
        ]),
      )
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  find(id: string): Promise<SavedViewRow | undefined> {
    return this.db.selectFrom('saved_view').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  insert(view: {
    userId: string;
    organizationId: string | null;
    name: string;
    query: string;
  }): Promise<SavedViewRow> {
    return this.db
      .insertInto('saved_view')
      .values({
        user_id: view.userId,
        organization_id: view.organizationId,
        name: view.name,
        query: view.query,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('saved_view').where('id', '=', id).execute();
  }
}
