/**
 * A project's keyword watches (issue 30; docs/catalog.md, "Keyword watches"): read and replace, with
 * an audit entry per change in the same transaction. A keyword no project watched before is matched
 * against the whole catalog at once, so the CVEs it matches show in the project's list at once, as
 * those of a new subscription do (no alert: alerts are for changes, as for a subscription); one no
 * project watches any more leaves its matches behind.
 */
import { activeProject } from './tracker-model.ts';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { KeywordRepository, type KeywordMatchRow } from '../db/keyword.repository.ts';
import { ProjectRepository } from '../db/project.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { KeywordMatcher, parseKeywords } from '../domain/keywords.ts';

export class ProjectKeywordService {
  private readonly projects: ProjectRepository;
  private readonly keywords: KeywordRepository;
  private readonly audit: AuditRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.projects = new ProjectRepository(db);
    this.keywords = new KeywordRepository(db);
    this.audit = new AuditRepository(db);
  }

  /** The active project's keywords, sorted; 404 for a project the organization does not have. */
  async get(organizationId: string, projectName: string): Promise<string[]> {
    const project = await activeProject(this.projects, organizationId, projectName);
    return this.keywords.keywords(project.id);
  }

  /**
   * Makes the project's keywords exactly `typed` (normalized, duplicates in any case once): 400
   * naming each keyword refused, and nothing changes. Returns the keywords, sorted.
   */
  async replace(
    organizationId: string,
    projectName: string,
    typed: readonly string[],
    actor: Actor,
  ): Promise<string[]> {
    const project = await activeProject(this.projects, organizationId, projectName);
    const parsed = parseKeywords(typed);
    if ('errors' in parsed) throw validationError(parsed.errors);
    return this.db.transaction().execute(async (tx) => {
      if (!(await this.projects.lock(project.id, tx))) throw new AppError('not_found');
      await this.keywords.lock(tx);
      const diff = await this.keywords.replace(project.id, parsed.keywords, tx);
      if (diff.added.length || diff.removed.length) {
        await this.matchCatalog(await this.keywords.watchedOnlyBy(project.id, diff.added, tx), tx);
        await this.keywords.forget(await this.keywords.watchedOnlyBy(project.id, diff.removed, tx), tx);
        await this.projects.update(project.id, {}, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'keyword.update',
            resourceType: 'keyword',
            resourceId: project.id,
            resourceName: project.name,
            changes: { added: diff.added, removed: diff.removed },
          },
          tx,
        );
      }
      return this.keywords.keywords(project.id, tx);
    });
  }

  /** Stores the matches in the catalog of keywords no project watched until now (one pass for all). */
  private async matchCatalog(keywords: readonly string[], tx: Transaction<DB>): Promise<void> {
    if (!keywords.length) return;
    const matcher = new KeywordMatcher(keywords);
    const candidates = await this.keywords.candidates(keywords, tx);
    for await (const texts of this.keywords.texts(candidates, tx)) {
      const rows: KeywordMatchRow[] = [];
      for (const t of texts)
        for (const [keyword, fields] of matcher.match(t)) rows.push({ keyword, cveId: t.cveId, fields });
      await this.keywords.insertMatches(rows, tx);
    }
  }
}
