/**
 * What the tracker's services share: a project's CVE with its triage as callers see it, the list
 * query they take, a move, and the small conversions from the tracker repository's rows.
 */
import type { ProjectRepository } from '../db/project.repository.ts';
import type { ProjectCveRow, TrackerState } from '../db/tracker.repository.ts';
import type { CveListFilters, CveOrdering } from '../domain/cve-list.ts';
import { AppError } from '../domain/errors.ts';
import { EMAIL, normalizeEmail, PROJECT_NAME } from '../domain/names.ts';
import type { ProjectRow } from '../domain/project.ts';
import type { TriageStatus } from '../domain/triage.ts';
import { toSecondsZ } from '../domain/timestamps.ts';

/** A CVE's tracker entry as callers see it; every field null for an untracked CVE. */
export interface TriageState {
  status: string | null;
  /** The assignee's email. */
  assignee: string | null;
  assigned_at: Date | null;
  updated_at: Date | null;
}

/** A CVE of a project as lists show it: the catalog list item's fields and the tracker entry. */
export interface TrackedCve {
  cve_id: string;
  description: string | null;
  /** As the API writes CVE dates: `YYYY-MM-DDTHH:MM:SSZ`. */
  created_at: string;
  updated_at: string;
  tracker: TriageState;
}

/** A move: `undefined` leaves a field as it is, `null` clears it. */
export interface TrackerPatch {
  status?: TriageStatus | null | undefined;
  /** The assignee's email. */
  assignee?: string | null | undefined;
}

/** A query of a project's CVE list: the catalog's filters and the tracker's. */
export interface ProjectCveQuery {
  filters: CveListFilters;
  /** The advanced query as the client wrote it (the projects it names are the organization's). */
  q?: string | undefined;
  ordering: CveOrdering;
  /** A status, or `no_status`. */
  status?: TriageStatus | 'no_status' | undefined;
  /** The assignee's email, or null for CVEs nobody is assigned to. */
  assignee?: string | null | undefined;
  /** CVEs the user tagged so (the user's own tags; a tag the user never used is a 400 under `tag`). */
  tag?: { userId: string; tag: string } | undefined;
  /** Names the catalog filters (as the client sent them) so the count can be cached. */
  countKey?: string | undefined;
}

/** A project as its CVE list needs it: id, subscribed vendor keys (sorted) and list version. */
export interface ListedProject {
  id: string;
  keys: string[];
  /**
   * CVEs of its own beyond its subscribed keys: keyword matches (migration 0039) and inventory
   * findings (0041); its list holds them too.
   */
  hasOwnCves: boolean;
  listVersion: number;
}

export const UNTRACKED: TriageState = {
  status: null,
  assignee: null,
  assigned_at: null,
  updated_at: null,
};

/** The email trimmed and in lower case; undefined when it cannot be one (no lookup is made). */
export function emailOf(value: string): string | undefined {
  const email = normalizeEmail(value);
  return EMAIL.test(email) && !email.includes('\u0000') ? email : undefined;
}

/** A tracker entry as callers see it (without the assignee's id). */
export function trackerOf(entry: TrackerState): TriageState {
  return {
    status: entry.status,
    assignee: entry.assignee,
    assigned_at: entry.assigned_at,
    updated_at: entry.updated_at,
  };
}

/** A project's CVE with its tracker entry, as callers see it. */
export function trackedOf(row: ProjectCveRow): TrackedCve {
  return {
    cve_id: row.cve_id,
    description: row.description,
    created_at: toSecondsZ(row.created_at),
    updated_at: toSecondsZ(row.updated_at_cve),
    tracker: row.tracked ? trackerOf(row) : UNTRACKED,
  };
}

/** The active project named `name`: an inactive project's CVEs are a 404, as on OpenCVE. */
export async function activeProject(
  projects: ProjectRepository,
  organizationId: string,
  name: string,
): Promise<ProjectRow> {
  // A name no project can have (a NUL byte, say) is not looked up: PostgreSQL text cannot hold it.
  const project = PROJECT_NAME.test(name) ? await projects.findByName(organizationId, name) : undefined;
  if (!project?.active) throw new AppError('not_found');
  return project;
}
