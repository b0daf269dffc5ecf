/**
 * Saved views of the web UI's CVE list: a name and the list's query string, private to the user who
 * saved it or shared with one of their organizations. A shared view is seen by that organization's
 * joined members only, and deleted by whoever saved it or an owner of the organization; creating and
 * deleting one is in the organization's audit log. Another user's private view, or a view of an
 * organization the user has not joined, is `not_found`, as if it did not exist.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { SavedViewRepository } from '../db/saved-view.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';

export interface SavedView {
  id: string;
  name: string;
  /** The CVE list's query string, without `?`. */
  query: string;
  /** The organization it is shared with; undefined for a private view. */
  organization: string | undefined;
  /** True when the user may delete it. */
  deletable: boolean;
  createdAt: Date;
}

export interface SavedViewInput {
  name: string;
  query: string;
  /** Share with this organization (by name); undefined: private. */
  organization?: string | undefined;
}

const MAX_NAME = 100;
const MAX_QUERY = 2000;

export class SavedViewService {
  private readonly views: SavedViewRepository;
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.views = new SavedViewRepository(db);
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
  }

  /** The user's private views and those of the organizations they have joined, by name. */
  async list(userId: string): Promise<SavedView[]> {
    const orgs = await this.accounts.organizationsOfUser(userId);
    const byId = new Map(orgs.map((o) => [o.organizationId, o]));
    const rows = await this.views.visibleTo(userId, [...byId.keys()]);
    return rows.map((row) => {
      const org = row.organization_id === null ? undefined : byId.get(row.organization_id);
      return {
        id: row.id,
        name: row.name,
        query: row.query,
        organization: org?.name,
        deletable: row.user_id === userId || org?.role === 'owner',
        createdAt: row.created_at,
      };
    });
  }

  /** Saves a view. 400 for a missing or too long name or query, or a name already used there. */
  async create(actor: Actor & { id: string }, input: SavedViewInput): Promise<SavedView> {
    const name = input.name.trim();
    const query = input.query.trim().replace(/^\?/, '');
    const problems: Record<string, string[]> = {};
    if (!name) problems.name = ['Give the view a name.'];
    else if (name.length > MAX_NAME) problems.name = [`At most ${MAX_NAME} characters.`];
    if (query.length > MAX_QUERY)
      problems.query = [`The list's filters are too long to save (at most ${MAX_QUERY} characters).`];
    let org: { organizationId: string; name: string } | undefined;
    if (input.organization) {
      org = (await this.accounts.organizationsOfUser(actor.id)).find((o) => o.name === input.organization);
      if (!org) problems.organization = ['You are not a member of this organization.'];
    }
    if (Object.keys(problems).length) throw validationError(problems);
    try {
      const row = await this.db.transaction().execute(async (tx) => {
        const created = await new SavedViewRepository(tx).insert({
          userId: actor.id,
          organizationId: org?.organizationId ?? null,
          name,
          query,
        });
        if (org) {
          await this.audit.record(
            {
              organizationId: org.organizationId,
              actor,
              action: 'saved_view.create',
              resourceType: 'saved_view',
              resourceId: created.id,
              resourceName: name,
              changes: { name: { old: null, new: name }, query: { old: null, new: query } },
            },
            tx,
          );
        }
        return created;
      });
      return {
        id: row.id,
        name: row.name,
        query: row.query,
        organization: org?.name,
        deletable: true,
        createdAt: row.created_at,
      };
    } catch (err) {
      if (isUniqueViolation(err))
        throw validationError({
          name: [`A view named "${name}" already exists ${org ? `in ${org.name}` : 'among yours'}.`],
        });
      throw err;
    }
  }

  /** Deletes a view the user may delete; any other (or none) is `not_found`. */
  async delete(actor: Actor & { id: string }, viewId: string): Promise<void> {
    if (!/^[0-9a-f-]{36}$/i.test(viewId)) throw new AppError('not_found');
    const view = await this.views.find(viewId);
    if (!view) throw new AppError('not_found');
    if (view.organization_id === null) {
      if (view.user_id !== actor.id) throw new AppError('not_found');
      await this.views.delete(view.id);
      return;
    }
    const org = (await this.accounts.organizationsOfUser(actor.id)).find(
      (o) => o.organizationId === view.organization_id,
    );
    if (!org) throw new AppError('not_found');
    if (view.user_id !== actor.id && org.role !== 'owner')
      throw new AppError(
        'permission_denied',
        'Only whoever saved this view or an owner of the organization may delete it.',
      );
    await this.db.transaction().execute(async (tx) => {
      await new SavedViewRepository(tx).delete(view.id);
      await this.audit.record(
        {
          organizationId: org.organizationId,
          actor,
          action: 'saved_view.delete',
          resourceType: 'saved_view',
          resourceId: view.id,
          resourceName: view.name,
          changes: { name: { old: view.name, new: null }, query: { old: view.query, new: null } },
        },
        tx,
      );
    });
  }
}
