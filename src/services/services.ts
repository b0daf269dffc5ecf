/**
 * What the composition root (`src/main.ts`) hands to the layers above the services: every service of
 * one process, over one database. Routes and commands take only the members they use
 * (`Pick<Services, ...>`).
 */
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { ImportService } from './import.service.ts';
import type { HealthService } from './health.service.ts';
import type { FreshnessService } from './freshness.service.ts';
import type { CatalogService } from './catalog.service.ts';
import type { TokenService } from './token.service.ts';
import type { AccountService } from './account.service.ts';
import type { OrganizationService } from './organization.service.ts';
import type { MemberService } from './member.service.ts';
import type { OidcService } from './oidc.service.ts';
import type { AuditService } from './audit.service.ts';
import type { ProjectService } from './project.service.ts';
import type { TrackerService } from './tracker.service.ts';
import type { ProjectCveService } from './project-cves.service.ts';
import type { TrackerCommentService } from './tracker-comments.service.ts';
import type { TrackerAutomation } from './tracker-automation.service.ts';
import type { TagService } from './tag.service.ts';
import type { BasicAuthService } from './basic-auth.service.ts';
import type { ApiV1Service } from './api-v1.service.ts';
import type { SyncService } from './sync.service.ts';
import type { MetricsService } from './metrics.service.ts';
import type { JobService } from './job.service.ts';
import type { DeliveryService } from './delivery.service.ts';
import type { EventProcessor } from './event-processor.service.ts';
import type { NotificationService } from './notification.service.ts';
import type { AutomationService } from './automation.service.ts';
import type { ReportService } from './report.service.ts';
import type { ApiV1ReportService } from './api-v1-reports.service.ts';
import type { WebSessionService } from './web-session.service.ts';
import type { OpenCveMigrationService } from './opencve-migration.service.ts';
import type { SecurityService } from './security.service.ts';
import type { SavedViewService } from './saved-view.service.ts';
import type { InvitationService } from './invitation.service.ts';
import type { StatisticsService } from './statistics.service.ts';
import type { OnboardingService } from './onboarding.service.ts';
import type { ProjectMatchService } from './project-match.service.ts';
import type { ProjectKeywordService } from './project-keyword.service.ts';
import type { VendorAliasService } from './vendor-alias.service.ts';
import type { InventoryMatchService } from './inventory-match.service.ts';
import type { InventoryService } from './inventory.service.ts';

import type { DashboardService } from './dashboard.service.ts';

export interface Services {
  config: Config;
  database: Database;
  imports: ImportService;
  health: HealthService;
  /** How current the catalog is per upstream source (pages' freshness line and banner), and the staleness alarm. */
  freshness: FreshnessService;
  catalog: CatalogService;
  tokens: TokenService;
  accounts: AccountService;
  organizations: OrganizationService;
  members: MemberService;
  /** Single sign-on with OpenID Connect; undefined without OIDC_ISSUER. */
  oidc: OidcService | undefined;
  auditLog: AuditService;
  projects: ProjectService;
  /** A project's CVEs with their triage, read: lists, exports, one CVE, one tracker row, assignees. */
  projectCves: ProjectCveService;
  /** Triage moves of a project's CVEs: one, several (all or nothing), the web tracker's bulk edit. */
  tracker: TrackerService;
  /** Comments on a project's CVE, and who may edit or delete them. */
  trackerComments: TrackerCommentService;
  /** An automation's tracker actions, inside the event processor's (or a report's) transaction. */
  trackerAutomation: TrackerAutomation;
  /** Why a CVE is (or is not) in a project: matched keys, their sources, when it entered. */
  projectMatch: ProjectMatchService;
  /** A project's keyword watches: read, replace (audited), the catalog matched for a new keyword. */
  projectKeywords: ProjectKeywordService;
  /** CNA vendor/product text → catalog keys: the learned alias table and the operator's overrides. */
  vendorAliases: VendorAliasService;
  /** Which CVEs affect each component of an inventory, at its version (`POST /api/v2/match`). */
  inventoryMatch: InventoryMatchService;
  /** A project's inventories (SBOMs): upload, list, components, findings, delete, VEX (issue 33). */
  inventories: InventoryService;
  /** A user's own tags on CVEs (CLI, web UI, API v1's `tag` filter). */
  tags: TagService;
  /** API v1's HTTP Basic authentication, with its credential cache. */
  basicAuth: BasicAuthService;
  apiV1: ApiV1Service;
  /** One sync round of an upstream source (`vulntrack sync`, the `sync` job). */
  sync: SyncService;
  metrics: MetricsService;
  jobs: JobService;
  /** Matches recorded changes to projects and runs alert automations (the `events.process` job). */
  events: EventProcessor;
  deliveries: DeliveryService;
  notifications: NotificationService;
  automations: AutomationService;
  reports: ReportService;
  /** API v1's reports and alerts of a user (legacy shape). */
  apiV1Reports: ApiV1ReportService;
  /** The web UI's people: sign-in, sessions, memberships, the first administrator's link. */
  webSessions: WebSessionService;
  /** `vulntrack migrate-from-opencve`: an OpenCVE organization copied in through its API v2. */
  opencveMigration: OpenCveMigrationService;
  /** Password change and reset, two-factor sign-in and recovery codes. */
  security: SecurityService;
  /** Saved views of the web UI's CVE list (a user's own, an organization's shared ones). */
  savedViews: SavedViewService;
  /** Joining an organization through an invitation link (web UI, API v2); open sign-up. */
  invitations: InvitationService;
  /** The catalog statistics, computed by the `statistics.compute` job and read as stored. */
  statistics: StatisticsService;
  /** A first project with its subscriptions, alert and weekly report in one go (web UI onboarding). */
  onboarding: OnboardingService;

  /** The project dashboard, its Atom feeds and the organization overview. */
  dashboards: DashboardService;
  /** The server secret (keys for token hashing and signing). */
  secret: string;
  close(): Promise<void>;
}
