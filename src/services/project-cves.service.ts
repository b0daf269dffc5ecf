/**
 * A project's CVEs with their triage, read: API v2's pages and export, the web tracker's keyset pages
 * and one of its rows, one CVE of the project, and who may be assigned. Moves are TrackerService's,
 * comments TrackerCommentService's.
 */
import type { CveRepository } from '../db/cve.repository.ts';
import type { CveListRepository } from '../db/cve-list.repository.ts';
import type { ProjectRepository } from '../db/project.repository.ts';
import type { TrackerRepository } from '../db/tracker.repository.ts';
import type { CveBrowseRow, CveCursor } from '../domain/cve-list.ts';
import { AppError } from '../domain/errors.ts';
import { assertPageInRange, type PageRequest } from '../domain/paging.ts';
import { browseKeyset, type CveBrowsePage } from './cve-browse.ts';
import { exportIds, inChunks, type CveExport, type CveExportRow } from './cve-export.ts';
import type { CveListReader } from './cve-list-reader.ts';
import type { ListCache } from './list-cache.ts';
import type { ProjectCveLists } from './project-cve-list.ts';
import {
  activeProject,
  trackedOf,
  trackerOf,
  UNTRACKED,
  type ListedProject,
  type ProjectCveQuery,
  type TrackedCve,
  type TriageState,
} from './tracker-model.ts';

export type { ListedProject, ProjectCveQuery, TrackedCve, TriageState } from './tracker-model.ts';

/** A CVE of a project as an export writes it: the catalog's exported columns and the tracker entry. */
export interface TrackedCveExportRow extends CveExportRow {
  tracker: TriageState;
}

/** One row of the web tracker: the CVE as the list shows it, and its tracker entry (if any). */
export interface TrackerRow {
  cve: CveBrowseRow;
  tracker: TriageState | undefined;
}

export class ProjectCveService {
  constructor(
    private readonly cves: CveRepository,
    private readonly lists: CveListRepository,
    private readonly reader: CveListReader,
    private readonly cache: ListCache,
    private readonly projects: ProjectRepository,
    private readonly tracker: TrackerRepository,
    private readonly projectLists: ProjectCveLists,
  ) {}

  /**
   * One page of the project's CVEs with the catalog filters and the tracker's: the project and its
   * subscriptions in one read, then the page with its tracker entries (LEFT JOINed) and its count
   * (cached per catalog version, see CveListReader).
   */
  async listCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
    page: PageRequest,
    listed?: ListedProject,
  ): Promise<{ count: number; items: TrackedCve[]; version: number | undefined }> {
    const list = await this.projectLists.resolve(organizationId, projectName, query, listed);
    if (!list) {
      assertPageInRange(page, 0);
      return { count: 0, items: [], version: undefined };
    }
    const { count, items, version } = await this.reader.read(
      { filters: list.filters, countKey: this.projectLists.countKeyOf(list, query.countKey) },
      query.ordering,
      page,
      (window) => this.lists.trackedPage(list.projectId, list.filters, query.ordering, window),
    );
    return {
      count,
      version,
      items: items.map((r) => ({
        cve_id: r.cve_id,
        description: r.description,
        created_at: r.created_at,
        updated_at: r.updated_at,
        tracker: {
          status: r.tracker_status,
          assignee: r.tracker_assignee,
          assigned_at: r.tracker_assigned_at,
          updated_at: r.tracker_updated_at,
        },
      })),
    };
  }

  /** Every CVE of the project's list, in its order, for an export (at most CVE_EXPORT_MAX, else a 400). */
  async exportCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
  ): Promise<CveExport<TrackedCveExportRow>> {
    const list = await this.projectLists.resolve(organizationId, projectName, query);
    if (!list) return { count: 0, rows: inChunks([], () => Promise.resolve([])) };
    const { projectId, filters } = list;
    const countKey = this.projectLists.countKeyOf(list, query.countKey);
    const ids = await exportIds(this.cves, filters, query.ordering, () =>
      this.reader.count({ filters, countKey }),
    );
    const read = async (chunk: string[]): Promise<TrackedCveExportRow[]> => {
      const rows = await this.cves.exportRows(chunk);
      const entries = await this.tracker.entries(projectId, chunk);
      return rows.map((r) => {
        const entry = entries.get(r.cve_id);
        return { ...r, tracker: entry ? trackerOf(entry) : UNTRACKED };
      });
    };
    return { count: ids.length, rows: inChunks(ids, read) };
  }

  /**
   * A project as its CVE list needs it: id, subscribed vendor keys and list version (one prepared
   * statement); 404 when the organization has no such project, or it is inactive.
   */
  listedProject(organizationId: string, projectName: string): Promise<ListedProject> {
    return this.projectLists.listedProject(organizationId, projectName);
  }

  /** One CVE of the project; 404 when the project does not have it. */
  async getCve(organizationId: string, projectName: string, cveId: string): Promise<TrackedCve> {
    const project = await activeProject(this.projects, organizationId, projectName);
    const keys = await this.projects.subscriptionKeys(project.id);
    const [row] = await this.tracker.projectCves(project.id, keys, [cveId]);
    if (!row) throw new AppError('not_found');
    return trackedOf(row);
  }

  /**
   * A keyset page of the project's list for the web UI (from `cursor`, its count capped as /cves'
   * is), each CVE with its tracker entry. Undefined page items when nothing can match.
   */
  async browseCves(
    organizationId: string,
    projectName: string,
    query: ProjectCveQuery,
    cursor: CveCursor | undefined,
    limit: number,
  ): Promise<{ page: CveBrowsePage; tracker: Map<string, TriageState> }> {
    const list = await this.projectLists.resolve(organizationId, projectName, query);
    if (!list) {
      const empty = { items: [], count: 0, capped: false, next: undefined, previous: undefined, position: 0 };
      return { page: empty, tracker: new Map() };
    }
    const countKey = this.projectLists.countKeyOf(list, query.countKey);
    const page = await browseKeyset(
      this.lists,
      this.cache,
      list.filters,
      query.ordering,
      cursor,
      limit,
      countKey,
    );
    const entries = await this.tracker.entries(
      list.projectId,
      page.items.map((r) => r.cve_id),
    );
    return {
      page,
      tracker: new Map([...entries].map(([id, entry]) => [id, trackerOf(entry)])),
    };
  }

  /**
   * One CVE of the project as a row of the web tracker shows it (after a move, htmx swaps the row):
   * one read of the CVE, no count. 404 when the project does not have it.
   */
  async row(organizationId: string, projectName: string, cveId: string): Promise<TrackerRow> {
    const {
      id: projectId,
      keys,
      hasOwnCves,
    } = await this.projectLists.listedProject(organizationId, projectName);
    if (!keys.length && !hasOwnCves) throw new AppError('not_found');
    const filters = {
      anyVendorKeys: keys,
      ownCvesProjectId: hasOwnCves ? projectId : undefined,
      excludeRejected: true,
      where: this.tracker.onlyCve(cveId),
    };
    const [cve] = await this.lists.keysetPage(filters, 'cve_id', undefined, 1);
    if (!cve) throw new AppError('not_found');
    const entry = (await this.tracker.entries(projectId, [cve.cve_id])).get(cve.cve_id);
    return { cve, tracker: entry && trackerOf(entry) };
  }

  /** Who may be assigned the organization's CVEs: its joined members, by username. */
  async assignees(organizationId: string): Promise<{ email: string; username: string }[]> {
    return (await this.tracker.joinedMembers(organizationId)).map(({ email, username }) => ({
      email,
      username,
    }));
  }
}
