/**
 * "Why is this CVE (not) in this project?": for a project and any CVE id, whether the CVE belongs to
 * it, which subscribed key matched and from which provider's statement the key came, when the CVE
 * entered the project, or why not and the nearest subscribed keys (`domain/project-match.ts`). One
 * database read per answer, for one project or for every active project of an organization. Serves
 * the web UI's project CVE page and catalog CVE page, and API v2's match answer.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ProjectMatchRepository } from '../db/project-match.repository.ts';
import { isCveId } from '../domain/cve-id.ts';
import { AppError } from '../domain/errors.ts';
import { PROJECT_NAME } from '../domain/names.ts';
import { explainMatches, type ProjectMatch } from '../domain/project-match.ts';

const notInCatalog = (cveId: string) =>
  new AppError('not_found', `${cveId} is not in the catalog: not published yet, or its record not imported.`);

export class ProjectMatchService {
  private readonly matches: ProjectMatchRepository;

  constructor(db: Kysely<DB>) {
    this.matches = new ProjectMatchRepository(db);
  }

  /**
   * The answer for one active project of the organization. 404 `not_found` for a project the
   * organization does not have (or an inactive one), and for a CVE the catalog does not list (with a
   * sentence saying so).
   */
  async explain(organizationId: string, projectName: string, cveId: string): Promise<ProjectMatch> {
    if (!PROJECT_NAME.test(projectName)) throw new AppError('not_found');
    if (!isCveId(cveId)) throw notInCatalog(cveId);
    const facts = await this.matches.facts(cveId, organizationId, projectName);
    if (!facts) throw notInCatalog(cveId);
    const [answer] = explainMatches(facts);
    if (!answer) throw new AppError('not_found');
    return answer;
  }

  /** The answer for every active project of the organization, by project name (404 for a CVE not in the catalog). */
  async explainAll(organizationId: string, cveId: string): Promise<ProjectMatch[]> {
    if (!isCveId(cveId)) throw notInCatalog(cveId);
    const facts = await this.matches.facts(cveId, organizationId, undefined);
    if (!facts) throw notInCatalog(cveId);
    return explainMatches(facts);
  }
}
