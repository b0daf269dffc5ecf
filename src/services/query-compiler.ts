/** The advanced query `q` of CVE lists: parsed, project names resolved in the caller's organization, compiled to SQL. */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CveFilters } from '../db/cve-list-conditions.ts';
import { compileCveQuery, resolveQueryProjects, splitRequiredVendors } from '../db/query-to-sql.ts';
import { collectProjectNames, parseQuery } from '../domain/query-language.ts';
import { validationError } from '../domain/errors.ts';

export class QueryCompiler {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The repository filters of `q` (none when it is absent): the vendor keys it requires, so the list
   * can be read through them, and the condition of the rest. Throws 400 for a malformed query.
   */
  async compile(
    q: string | undefined,
    organizationId: string,
  ): Promise<Pick<CveFilters, 'where' | 'allVendorKeys'>> {
    if (!q?.trim()) return {};
    const node = parseQuery(q);
    const projects = await resolveQueryProjects(this.db, organizationId, node);
    const unknown = collectProjectNames(node).filter((name) => !projects.has(name));
    if (unknown.length) throw validationError({ q: unknown.map((name) => `unknown project "${name}"`) });
    const context = { projects };
    const { keys, rest } = splitRequiredVendors(node);
    return {
      allVendorKeys: keys.length ? keys : undefined,
      where: rest ? (eb) => compileCveQuery(rest, eb, context) : undefined,
    };
  }
}
