/**
 * The project dashboard (new and changed CVEs since the user's last visit, counts by status and
 * severity, top assignees, open KEV CVEs, last reports, subscriptions), each user's Atom feed of a
 * project behind a secret URL, and the organization overview across its projects (docs/web-ui.md,
 * "Projects: dashboard"). Which changes concern a project, and how, is domain/project-events.ts's
 * to say, as for alerts and reports.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { DashboardRepository, type FeedOwner } from '../db/dashboard.repository.ts';
import { KeywordRepository } from '../db/keyword.repository.ts';
import { ProjectRepository } from '../db/project.repository.ts';
import { ReportRepository } from '../db/report.repository.ts';
import { CVSS_LEVELS, type CvssLevel } from '../domain/cvss.ts';
import {
  ATOM_MAX_ENTRIES,
  countsOf,
  FEED_DAYS,
  FEED_MAX_CHANGES,
  FEED_MAX_CVES,
  foldChanges,
  levelOf,
  VISIT_GAP_MS,
  type AssignedCve,
  type AssigneeCount,
  type DashboardCounts,
  type DashboardFeed,
  type FeedChange,
  type OpenKevCve,
  type ProjectOverview,
} from '../domain/dashboard.ts';
import { AppError } from '../domain/errors.ts';
import { inventoryFlagKey } from '../domain/inventory.ts';
import { keywordFlagKey } from '../domain/keywords.ts';
import { PROJECT_NAME } from '../domain/names.ts';
import { itemEvents, projectView } from '../domain/project-events.ts';
import type { ReportRow } from '../domain/report.ts';
import { subscriptionsOfKeys, type SubscriptionSet } from '../domain/subscriptions.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rows of the dashboard's small panels. */
const TOP_ASSIGNEES = 5;
const OPEN_KEV_SHOWN = 10;
const LAST_REPORTS = 5;
const ORG_ASSIGNEES = 10;
/** Open CVEs listed under "Assigned to you" on the organization's home. */
const ASSIGNED_SHOWN = 10;
/** A feed secret: 32 random bytes' HMAC, base64url (43 characters). */
/** Results kept per catalog version (least recently used first out). */
const CACHE_MAX = 500;
const FEED_SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface ProjectDashboard {
  feed: DashboardFeed;
  counts: DashboardCounts;
  assignees: AssigneeCount[];
  openKev: OpenKevCve[];
  reports: ReportRow[];
  subscriptions: SubscriptionSet;
  /** The user's Atom feed secret (null until they make one) and when it was made. */
  atom: { secret: string; created_at: Date } | null;
}

/** An Atom feed's content: its project and the latest changes of the last FEED_DAYS days. */
export interface AtomFeedContent {
  organization: string;
  project: string;
  changes: FeedChange[];
  /** The latest change's time (else the feed's start). */
  updated: Date;
}

export interface OrganizationOverview {
  projects: ProjectOverview[];
  assignees: AssigneeCount[];
  /** The open CVEs assigned to the member looking (the first ASSIGNED_SHOWN), and how many in all. */
  assignedToMe: { total: number; cves: AssignedCve[] };
  /** Where "this week" starts. */
  weekStart: Date;
}

export class DashboardService {
  private readonly dashboards: DashboardRepository;
  private readonly projects: ProjectRepository;
  private readonly reports: ReportRepository;
  private readonly keywords: KeywordRepository;
  private readonly cache = new Map<string, Promise<unknown>>();
  private cachedVersion: number | undefined;

  constructor(
    db: Kysely<DB>,
    private readonly secret: string,
  ) {
    this.dashboards = new DashboardRepository(db);
    this.projects = new ProjectRepository(db);
    this.reports = new ReportRepository(db);
    this.keywords = new KeywordRepository(db);
  }

  /**
   * The dashboard of an active project for one of its organization's members, and the visit
   * recorded (the next visit's feed starts here). 404 for a project the organization does not have.
   */
  async projectDashboard(
    organizationId: string,
    projectName: string,
    userId: string,
    now = new Date(),
  ): Promise<ProjectDashboard> {
    const project = await this.listed(organizationId, projectName);
    const { since, first } = await this.dashboards.recordVisit(
      project.id,
      userId,
      now,
      new Date(now.getTime() - FEED_DAYS * DAY_MS),
      VISIT_GAP_MS,
    );
    const version = await this.dashboards.catalogVersion();
    const own = await this.ownOf(project);
    const [changes, catalogCells, statusCells, assignees, openKev, reports, atom] = await Promise.all([
      this.cached(
        version,
        JSON.stringify([
          'feed',
          project.keys,
          since,
          // Its own CVEs and inventory events are its alone, and move with its list version
          // (keywords', inventories': migrations 0039, 0041).
          project.hasOwnCves ? [project.id, own.keywords, project.listVersion] : null,
        ]),
        () => this.changes(project.keys, since, now, FEED_MAX_CHANGES, FEED_MAX_CVES, own),
      ),
      this.catalogCells(project, version),
      this.dashboards.statusCells(project.id, project.keys, project.hasOwnCves),
      this.dashboards.topAssignees(project.id, project.keys, TOP_ASSIGNEES, project.hasOwnCves),
      this.dashboards.openKev(project.id, project.keys, OPEN_KEV_SHOWN, project.hasOwnCves),
      this.reports.list(project.id, LAST_REPORTS, 0),
      this.dashboards.feed(project.id, userId),
    ]);
    return {
      feed: {
        since,
        firstVisit: first,
        cves: foldChanges(changes.items),
        total: changes.cves,
        truncated: changes.truncated,
      },
      counts: countsOf(catalogCells, statusCells),
      assignees,
      openKev,
      reports,
      subscriptions: subscriptionsOfKeys(project.keys),
      atom: atom ? { secret: this.feedSecret(atom.nonce), created_at: atom.created_at } : null,
    };
  }

  /**
   * A project's counts as its dashboard shows them (by status, by severity, open by severity, open
   * KEV), without a visit: for a caller that is not a member (the MCP server's project summary). 404
   * for a project the organization does not have, or an inactive one.
   */
  async projectCounts(organizationId: string, projectName: string): Promise<DashboardCounts> {
    const project = await this.listed(organizationId, projectName);
    const version = await this.dashboards.catalogVersion();
    const [catalogCells, statusCells] = await Promise.all([
      this.catalogCells(project, version),
      this.dashboards.statusCells(project.id, project.keys, project.hasOwnCves),
    ]);
    return countsOf(catalogCells, statusCells);
  }

  /**
   * The project's CVEs counted by severity and KEV, kept per catalog version; a project watching
   * keywords or holding inventories: its CVEs move with its list version too (migrations 0039, 0041).
   */
  private catalogCells(project: Awaited<ReturnType<DashboardService['listed']>>, version: number) {
    return this.cached(
      version,
      JSON.stringify(['cells', project.keys, project.hasOwnCves ? [project.id, project.listVersion] : null]),
      () =>
        this.dashboards
          .catalogCells(project.keys, project.hasOwnCves ? project.id : undefined)
          .then((r) => r.cells),
    );
  }

  /** Makes the user's Atom feed of the project, or replaces it (the old URL answers 404 from then on). */
  async rotateFeed(organizationId: string, projectName: string, userId: string): Promise<void> {
    const project = await this.listed(organizationId, projectName);
    const nonce = randomBytes(32).toString('base64url');
    await this.dashboards.setFeed(project.id, userId, nonce, hashOf(this.feedSecret(nonce)));
  }

  /**
   * The Atom feed behind a secret: 404 for an unknown or replaced secret, a user who is no longer a
   * joined member of the organization, or an inactive project.
   */
  async atomFeed(secret: string, now = new Date()): Promise<AtomFeedContent> {
    const owner: FeedOwner | undefined = FEED_SECRET.test(secret)
      ? await this.dashboards.feedByHash(hashOf(secret))
      : undefined;
    if (!owner) throw new AppError('not_found');
    const since = new Date(now.getTime() - FEED_DAYS * DAY_MS);
    const { items } = await this.changes(owner.keys, since, now, ATOM_MAX_ENTRIES, ATOM_MAX_ENTRIES, {
      keywords: owner.keywords,
      inventoryProjectId: owner.project_id,
    });
    return {
      organization: owner.organization,
      project: owner.project,
      changes: items,
      updated: items[0]?.changed_at ?? since,
    };
  }

  /**
   * Every active project of the organization (open CVEs by severity, open KEV, CVEs published in the
   * last FEED_DAYS days) and who holds the most open CVEs: a few grouped statements whatever the
   * number of projects; the catalog's part (a pass over each project's CVEs) kept per catalog version.
   */
  async organizationOverview(
    organizationId: string,
    userId: string,
    now = new Date(),
  ): Promise<OrganizationOverview> {
    // The week starts on an hour, so that the catalog's part is kept for an hour at most.
    const weekStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - FEED_DAYS * DAY_MS);
    const [version, projects] = await Promise.all([
      this.dashboards.catalogVersion(),
      this.dashboards.activeProjects(organizationId),
    ]);
    const [cells, closed, assignees, assignedToMe, visits] = await Promise.all([
      // Kept per version, the projects and their subscriptions (list versions) and the week.
      this.cached(version, JSON.stringify(['overview', organizationId, projects, weekStart]), () =>
        this.dashboards.overviewCells(organizationId, weekStart),
      ),
      this.dashboards.overviewClosedCells(organizationId),
      this.dashboards.organizationAssignees(organizationId, ORG_ASSIGNEES),
      this.dashboards.assignedTo(organizationId, userId, ASSIGNED_SHOWN),
      this.dashboards.visitStarts(organizationId, userId, now, VISIT_GAP_MS),
    ]);
    const byName = new Map<string, ProjectOverview>();
    for (const cell of cells) {
      let p = byName.get(cell.project);
      if (!p) {
        p = {
          name: cell.project,
          subscriptions: cell.subscriptions,
          newThisWeek: 0,
          openBySeverity: Object.fromEntries(CVSS_LEVELS.map((l) => [l, 0])) as Record<CvssLevel, number>,
          open: 0,
          kevOpen: 0,
          sinceVisit: { count: 0, since: weekStart, visited: false, more: false },
        };
        byName.set(cell.project, p);
      }
      if (cell.recent) p.newThisWeek += cell.count;
      p.open += cell.count;
      p.openBySeverity[levelOf(cell.cvss31)] += cell.count;
      if (cell.kev) p.kevOpen += cell.count;
    }
    for (const cell of closed) {
      const p = byName.get(cell.project);
      if (!p) continue;
      p.open -= cell.count;
      p.openBySeverity[levelOf(cell.cvss31)] -= cell.count;
      if (cell.kev) p.kevOpen -= cell.count;
    }
    await Promise.all(
      [...byName.values()].map(async (p) => {
        p.sinceVisit = await this.sinceVisit(
          organizationId,
          p.name,
          visits.get(p.name),
          weekStart,
          now,
          version,
        );
      }),
    );
    return { projects: [...byName.values()], assignees, assignedToMe, weekStart };
  }

  /**
   * How many CVEs of a project entered or changed since `visited` (where its dashboard's feed would
   * start now; never opened: `weekStart`), counted as that feed counts them (the same changes, kept
   * per catalog version alike), so the two numbers agree.
   */
  private async sinceVisit(
    organizationId: string,
    name: string,
    visited: Date | undefined,
    weekStart: Date,
    now: Date,
    version: number,
  ): Promise<ProjectOverview['sinceVisit']> {
    const since = visited ?? weekStart;
    const project = await this.projects.listed(organizationId, name);
    if (!project) return { count: 0, since, visited: visited !== undefined, more: false };
    const own = await this.ownOf(project);
    const changes = await this.cached(
      version,
      JSON.stringify([
        'since',
        project.keys,
        since,
        project.hasOwnCves ? [project.id, own.keywords, project.listVersion] : null,
      ]),
      () => this.changes(project.keys, since, now, FEED_MAX_CHANGES, 0, own),
    );
    return { count: changes.cves, since, visited: visited !== undefined, more: changes.truncated };
  }

  /**
   * What the catalog alone decides, kept per catalog version: the catalog's part of a project's
   * counts (by score and KEV: a pass over every CVE of the project, a second on PostgreSQL for 20
   * busy vendors of a 300,000-CVE catalog, docs/decisions.md) and a visit's feed (the window's
   * changes). Both change only when an import batch commits, which bumps the version (a change is
   * recorded with the CVE it changes). Concurrent requests share one computation; a failure is not
   * kept.
   */
  private cached<T>(version: number, key: string, compute: () => Promise<T>): Promise<T> {
    if (version !== this.cachedVersion) {
      this.cache.clear();
      this.cachedVersion = version;
    }
    let value = this.cache.get(key) as Promise<T> | undefined;
    if (value) {
      // Refresh its place in the eviction order.
      this.cache.delete(key);
    } else {
      value = compute();
      value.catch(() => this.cache.delete(key));
    }
    this.cache.set(key, value);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }

  private async listed(organizationId: string, projectName: string) {
    const project = PROJECT_NAME.test(projectName)
      ? await this.projects.listed(organizationId, projectName)
      : undefined;
    if (!project) throw new AppError('not_found');
    return project;
  }

  /**
   * The latest `limit` changes in [since, until) that concern a project subscribed to `keys` (or
   * watching `own.keywords`, or with inventories: `own.inventoryProjectId`, whose inventory events
   * are items too), each with the events it brought (a change may bring none: a CPE or vendor list
   * edit), latest first; `shown` CVEs of them (the latest changed) with their facts, and how many
   * CVEs in all.
   */
  private async changes(
    keys: readonly string[],
    since: Date,
    until: Date,
    limit: number,
    shown: number,
    own: { keywords: readonly string[]; inventoryProjectId: string | undefined },
  ): Promise<{ items: FeedChange[]; cves: number; truncated: boolean }> {
    const rows = await this.dashboards.recentChanges(keys, since, until, limit, undefined, own);
    const subscribed = new Set([
      ...keys,
      ...own.keywords.map(keywordFlagKey),
      ...(own.inventoryProjectId === undefined ? [] : [inventoryFlagKey(own.inventoryProjectId)]),
    ]);
    const viewed = rows.flatMap((r) => {
      const item = {
        entries: r.entries,
        epss: null,
        cve: { state: r.state, vendors: r.vendors },
        inventory: r.inventory,
      };
      const view = projectView(item, subscribed, r.flags);
      return view ? [{ row: r, events: itemEvents(item, view.enters).map((e) => e.type) }] : [];
    });
    const ids = [...new Set(viewed.map((v) => v.row.cve_id))];
    const facts = await this.dashboards.cveFacts(ids.slice(0, shown));
    const items = viewed.flatMap(({ row, events }) => {
      const cve = facts.get(row.cve_id);
      return cve
        ? [{ ...cve, change_id: row.change_id, event_seq: row.event_seq, changed_at: row.changed_at, events }]
        : [];
    });
    return { items, cves: ids.length, truncated: rows.length === limit };
  }

  /** What a project has of its own beyond its keys (`changes`' `own`): its keywords, its inventories. */
  private async ownOf(project: {
    id: string;
    hasOwnCves: boolean;
  }): Promise<{ keywords: string[]; inventoryProjectId: string | undefined }> {
    if (!project.hasOwnCves) return { keywords: [], inventoryProjectId: undefined };
    return { keywords: await this.keywords.keywords(project.id), inventoryProjectId: project.id };
  }

  /** A feed's secret: the HMAC of its nonce under the server secret (only its hash is looked up). */
  private feedSecret(nonce: string): string {
    return createHmac('sha256', this.secret).update(`project-feed:${nonce}`).digest('base64url');
  }
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
