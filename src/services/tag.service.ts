/**
 * A user's own tags on CVEs (as OpenCVE's user tags): set from the CLI today and the web UI later,
 * read by API v1's `tag` filter. Tags are private to their user.
 */
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { CveRepository } from '../db/cve.repository.ts';
import { TagRepository } from '../db/tag.repository.ts';
import { isCveId } from '../domain/cve-id.ts';
import { AppError, validationError } from '../domain/errors.ts';

/** Letters, digits, `_`, `.` and `-`, starting with a letter or digit; at most 64 characters. */
export const TAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** At most this many tags on one CVE. */
export const MAX_TAGS_PER_CVE = 50;

export interface TaggedCve {
  cve_id: string;
  tags: string[];
}

export class TagService {
  private readonly tags: TagRepository;
  private readonly accounts: AccountRepository;
  private readonly cves: CveRepository;

  constructor(db: Kysely<DB>) {
    this.tags = new TagRepository(db);
    this.accounts = new AccountRepository(db);
    this.cves = new CveRepository(db);
  }

  /**
   * Makes the user's tags on a catalog CVE exactly `tags` (none: untagged). Duplicates are ignored;
   * a bad tag name is a 400, a CVE not in the catalog a 404. Idempotent.
   */
  async set(userId: string, cveId: string, tags: readonly string[]): Promise<TaggedCve> {
    const unique = [...new Set(tags)].sort();
    const bad = unique.filter((t) => !TAG_NAME.test(t));
    if (bad.length)
      throw validationError({
        tags: bad.map((t) => `"${t}": letters, digits, _ . - only, at most 64 characters`),
      });
    if (unique.length > MAX_TAGS_PER_CVE)
      throw validationError({ tags: [`at most ${MAX_TAGS_PER_CVE} tags`] });
    if (!isCveId(cveId) || !(await this.cves.exists(cveId))) throw new AppError('not_found');
    await this.tags.replace(userId, cveId, unique);
    return { cve_id: cveId, tags: unique };
  }

  /** The user's tagged CVEs (or one CVE's tags), by CVE id. */
  list(userId: string, cveId?: string): Promise<TaggedCve[]> {
    return this.tags.list(userId, cveId);
  }

  /** The user's tags on each of some CVEs (a list page), by CVE id; untagged CVEs absent. */
  ofCves(userId: string, cveIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.tags.ofCves(userId, cveIds);
  }

  /** Every tag the user has used, sorted (a list's tag filter). */
  names(userId: string): Promise<string[]> {
    return this.tags.names(userId);
  }

  /** `set` for the user named `username` (the CLI). */
  async setForUsername(username: string, cveId: string, tags: readonly string[]): Promise<TaggedCve> {
    return this.set(await this.userId(username), cveId, tags);
  }

  async listForUsername(username: string, cveId?: string): Promise<TaggedCve[]> {
    return this.list(await this.userId(username), cveId);
  }

  /**
   * The CVE filter "tagged `tag` by the user" (for CveFilters.where). A tag the user has never used
   * is a 404, as an unknown vendor is.
   */
  async filter(
    userId: string,
    tag: string,
  ): Promise<(eb: ExpressionBuilder<DB, 'cve'>) => Expression<SqlBool>> {
    if (!TAG_NAME.test(tag) || !(await this.tags.exists(userId, tag))) throw new AppError('not_found');
    return this.tags.filter(userId, tag);
  }

  private async userId(username: string): Promise<string> {
    const user = await this.accounts.findUserByUsername(username);
    if (!user) throw validationError({ user: [`no user named "${username}"`] });
    return user.id;
  }
}
