/**
 * Composition root: the only place that wires concrete dependencies. Everything a command needs is
 * built here from the config and closed again by `close()`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { KeyMergeService } from './services/key-merge.service.ts';
import { ImportService } from './services/import.service.ts';
import { ImportRunRepository } from './db/import-run.repository.ts';
import { HealthService } from './services/health.service.ts';
import { CatalogService } from './services/catalog.service.ts';
import { SavedViewService } from './services/saved-view.service.ts';
import { ListCache } from './services/list-cache.ts';
import { TokenService } from './services/token.service.ts';
import { AccountService } from './services/account.service.ts';
import { AccountMailLimit } from './services/account-mail-limit.ts';
import { SecurityService } from './services/security.service.ts';
import { WebSessionService } from './services/web-session.service.ts';
import { InvitationService } from './services/invitation.service.ts';
import { FreshnessService } from './services/freshness.service.ts';
import { OrganizationService } from './services/organization.service.ts';
import { MemberService } from './services/member.service.ts';
import { OidcService } from './services/oidc.service.ts';
import { AuditService } from './services/audit.service.ts';
import { ProjectService } from './services/project.service.ts';
import { TrackerService } from './services/tracker.service.ts';
import { ProjectCveService } from './services/project-cves.service.ts';
import { TrackerCommentService } from './services/tracker-comments.service.ts';
import { TrackerAutomation } from './services/tracker-automation.service.ts';
import { ProjectCveLists } from './services/project-cve-list.ts';
import { TrackerMoves } from './services/tracker-moves.ts';
import { CveListReader } from './services/cve-list-reader.ts';
import { QueryCompiler } from './services/query-compiler.ts';
import { AuditRepository } from './db/audit.repository.ts';
import { CveRepository } from './db/cve.repository.ts';
import { CveListRepository } from './db/cve-list.repository.ts';
import { ProjectRepository } from './db/project.repository.ts';
import { TagRepository } from './db/tag.repository.ts';
import { TrackerRepository } from './db/tracker.repository.ts';
import type { Kysely } from 'kysely';
import type { DB } from './db/schema.ts';
import { VendorAliasService } from './services/vendor-alias.service.ts';
import type { RemapReport } from './domain/import-report.ts';
import { ProjectMatchService } from './services/project-match.service.ts';
import { ProjectKeywordService } from './services/project-keyword.service.ts';
import { InventoryMatchService } from './services/inventory-match.service.ts';
import { InventoryService } from './services/inventory.service.ts';
import { TagService } from './services/tag.service.ts';
import { BasicAuthService } from './services/basic-auth.service.ts';
import { SignInGuard } from './services/sign-in-guard.ts';
import { ApiV1Service } from './services/api-v1.service.ts';
import { SyncService } from './services/sync.service.ts';
import { MetricsService } from './services/metrics.service.ts';
import { JobService } from './services/job.service.ts';
import { jobHandlers } from './jobs/handlers.ts';
import {
  notificationSchedules,
  purgeSchedule,
  statisticsSchedule,
  stalenessSchedule,
  vendorAliasSchedule,
  syncSchedules,
  tickKey,
} from './jobs/scheduler.ts';
import { DashboardService } from './services/dashboard.service.ts';
import { COMPUTE_STATISTICS_JOB, StatisticsService } from './services/statistics.service.ts';
import { JobRepository } from './db/job.repository.ts';
import { SecretBox } from './domain/secret-box.ts';
import { createChannelSender } from './notifications/channel-sender.ts';
import { createEmailSender } from './notifications/channels/email/email-sender.ts';
import { DeliveryService } from './services/delivery.service.ts';
import { EventProcessor, PROCESS_EVENTS_JOB } from './services/event-processor.service.ts';
import { NotificationService } from './services/notification.service.ts';
import { OpenCveMigrationService } from './services/opencve-migration.service.ts';
import { AutomationService } from './services/automation.service.ts';
import { OnboardingService } from './services/onboarding.service.ts';
import { ReportService } from './services/report.service.ts';
import { ApiV1ReportService } from './services/api-v1-reports.service.ts';
import { startJobRuntime, type JobRuntime } from './jobs/runtime.ts';
import type { Services } from './services/services.ts';
import { redactUrl } from './http/redact-url.ts';

export function createLogger(config: Config, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: undefined,
    // Access lines (at debug) name the page, never a secret some URLs carry.
    serializers: {
      req: (req: {
        method: string;
        url: string;
        host?: string;
        ip?: string;
        socket?: { remotePort?: number };
      }) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The server secret: VULNTRACK_SECRET, or (embedded default only) one generated on first start and
 * kept in the data dir with owner-only permissions.
 */
function resolveSecret(config: Config): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}

/**
 * The tracker's four services over one database, each given the repositories it uses: the project's
 * CVE lists (`projectCves`), triage moves (`tracker`), comments (`trackerComments`) and an
 * automation's moves inside the event processor's transaction (`trackerAutomation`).
 */
export function trackerServices(
  db: Kysely<DB>,
  lists: ListCache,
): Pick<Services, 'projectCves' | 'tracker' | 'trackerComments' | 'trackerAutomation'> {
  const projects = new ProjectRepository(db);
  const tracker = new TrackerRepository(db);
  const tags = new TagRepository(db);
  const audit = new AuditRepository(db);
  const cves = new CveRepository(db);
  const cveLists = new CveListRepository(db);
  const projectLists = new ProjectCveLists(projects, new QueryCompiler(db), tracker, tags);
  const moves = new TrackerMoves(projects, tracker, tags, audit);
  return {
    projectCves: new ProjectCveService(
      cves,
      cveLists,
      new CveListReader(cveLists, lists),
      lists,
      projects,
      tracker,
      projectLists,
    ),
    tracker: new TrackerService(db, projects, tracker, cves, projectLists, moves),
    trackerComments: new TrackerCommentService(db, projects, tracker, audit),
    trackerAutomation: new TrackerAutomation(projects, tracker, moves),
  };
}

/** The services over an open database. Tests build them over their own databases. */
export function servicesFor(config: Config, database: Database, secret: string): Services {
  const jobRepository = new JobRepository(database.db);
  // After an import that changed the catalog, the event processor runs (one job; a busy sync queues many, each cheap).
  // An import run holds a lease as jobs do (JOB_LEASE_SECONDS): a run whose process died is seen as interrupted.
  // A new alias table re-maps the catalog (imports take their mapper from here, hence the closure).
  const keyMerges = new KeyMergeService(database.db);
  const vendorAliases: VendorAliasService = new VendorAliasService(database.db, {
    remap: (onProgress, keys): Promise<RemapReport> => imports.remapVendorKeys({ onProgress, keys }),
  });
  const inventoryMatch = new InventoryMatchService(
    database.db,
    () => vendorAliases.mapper(),
    config.inventoryMatchCacheCves,
  );
  const imports = new ImportService(
    database.db,
    async () => {
      await jobRepository.enqueue([
        { name: PROCESS_EVENTS_JOB, dedupeKey: `${PROCESS_EVENTS_JOB}:${randomUUID()}` },
      ]);
    },
    {
      leaseMs: config.worker.leaseMs,
      vendorAliases,
      // A key minted from a CNA's name that a CPE named otherwise: remembered catalog-wide.
      onKeyMerges: async (merges, db) => {
        await keyMerges.remember(merges, db);
      },
    },
  );
  const metrics = new MetricsService(database.db, config.sync.sources);
  const sync = new SyncService(database.db, imports, config.sync, {
    observe: (source, outcome, seconds) => metrics.observeSync(source, outcome, seconds),
  });
  // One cache of exact list counts (and deep-page anchors) per process, shared by the catalog and the project lists.
  const lists = new ListCache();
  const catalog = new CatalogService(database.db, lists);
  const projects = new ProjectService(database.db);
  const { projectCves, tracker, trackerComments, trackerAutomation } = trackerServices(database.db, lists);
  const tags = new TagService(database.db);
  const n = config.notifications;
  const baseUrl = config.baseUrl ?? `http://localhost:${config.port}`;
  const box = new SecretBox(secret);
  const sender = createChannelSender({
    smtpUrl: n.smtpUrl,
    smtpFrom: n.smtpFrom,
    allowPrivate: n.outboundAllowPrivate,
    timeoutMs: n.deliveryTimeoutMs,
    baseUrl: config.baseUrl,
  });
  const emailSender = n.smtpUrl
    ? createEmailSender({ smtpUrl: n.smtpUrl, smtpFrom: n.smtpFrom, timeoutMs: n.deliveryTimeoutMs })
    : undefined;
  const deliveries = new DeliveryService(database.db, sender, box, n, baseUrl, (channel, outcome) =>
    metrics.observeDelivery(channel, outcome),
  );
  const reports = new ReportService(database.db, projects, trackerAutomation, deliveries);
  const accounts = new AccountService(database.db);
  // One throttle for every door that checks a password (web sign-in, API v1 Basic, confirm forms).
  const signInGuard = new SignInGuard();
  const ssoOnly = config.oidc?.only ?? false;
  const webSessions = new WebSessionService(database.db, accounts, signInGuard, ssoOnly);
  // One account-mail budget for invitations, confirmations and password resets (docs/notifications.md).
  const mailLimit = new AccountMailLimit(config.accountMail);
  const members = new MemberService(database.db, { sender: emailSender, baseUrl, limit: mailLimit });
  const services: Omit<Services, 'opencveMigration' | 'onboarding'> = {
    config,
    database,
    secret,
    imports,
    health: new HealthService(database.db, database.kind, config.sync.sources),
    freshness: new FreshnessService(database.db, config.sync, { sender: emailSender, baseUrl }),
    catalog,
    tokens: new TokenService(database.db, secret),
    accounts,
    webSessions,
    security: new SecurityService(database.db, accounts, {
      box,
      email: { sender: emailSender, baseUrl, limit: mailLimit },
      guard: signInGuard,
      resetOnlyForAdmins: ssoOnly,
    }),
    savedViews: new SavedViewService(database.db),
    invitations: new InvitationService(database.db, accounts, webSessions, {
      openSignup: config.webOpenSignup && !ssoOnly,
      ssoOnly,
    }),
    statistics: new StatisticsService(database.db),
    dashboards: new DashboardService(database.db, secret),
    organizations: new OrganizationService(database.db),
    members,
    oidc: config.oidc && new OidcService(database.db, config.oidc, { baseUrl, members }),
    auditLog: new AuditService(database.db),
    projects,
    projectCves,
    tracker,
    trackerComments,
    trackerAutomation,
    projectMatch: new ProjectMatchService(database.db),
    projectKeywords: new ProjectKeywordService(database.db),
    vendorAliases,
    inventoryMatch,
    inventories: new InventoryService(database.db, inventoryMatch),
    tags,
    basicAuth: new BasicAuthService(
      database.db,
      secret,
      config.apiV1AuthCacheMs,
      undefined,
      config.apiV1AuthFailuresPerMinute,
      { guard: signInGuard, twoFactorUsers: config.apiV1BasicTwoFactorUsers, adminsOnly: ssoOnly },
    ),
    apiV1: new ApiV1Service(database.db, catalog, projects, projectCves, tags),
    sync,
    metrics,
    jobs: new JobService(database.db),
    events: new EventProcessor(database.db, trackerAutomation, deliveries),
    deliveries,
    notifications: new NotificationService(
      database.db,
      projects,
      deliveries,
      box,
      { sender: emailSender, baseUrl, allowPrivate: n.outboundAllowPrivate, limit: mailLimit },
      projectCves,
    ),
    automations: new AutomationService(database.db, projects, reports),
    reports,
    apiV1Reports: new ApiV1ReportService(database.db),
    close: async () => {
      await sender.close();
      emailSender?.close();
      await database.close();
    },
  };
  const { catalog: catalogService, notifications, automations, projectKeywords } = services;
  return {
    ...services,
    onboarding: new OnboardingService(projects, notifications, automations, projectKeywords),
    opencveMigration: new OpenCveMigrationService(
      accounts,
      catalogService,
      projects,
      notifications,
      automations,
      projectCves,
      tracker,
    ),
  };
}

export async function createServices(config: Config, options: { migrate?: boolean } = {}): Promise<Services> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    migrate: options.migrate ?? true,
  });
  if (database.kind === 'embedded') {
    // This process holds the data dir alone: a run still marked running was killed.
    await new ImportRunRepository(database.db).markInterrupted();
  }
  return servicesFor(config, database, resolveSecret(config));
}

/**
 * Starts this process's job worker and scheduler (`serve` and `worker`): the configured sources'
 * sync schedules and the daily purge.
 */
export async function startJobs(services: Services, logger: Logger): Promise<JobRuntime> {
  const handlers = jobHandlers({
    jobs: services.jobs,
    sync: services.sync,
    events: services.events,
    deliveries: services.deliveries,
    notifications: services.notifications,
    reports: services.reports,
    statistics: services.statistics,
    vendorAliases: services.vendorAliases,
    freshness: services.freshness,
    logger,
  });
  const { sync } = services.config;
  // Before the worker claims anything: a source turned off has its queued sync jobs cancelled.
  const cancelled = await services.jobs.cancelSyncOfDisabledSources(
    sync.sources,
    services.database.kind === 'embedded',
  );
  if (cancelled.length) {
    const sources = [...new Set(cancelled.map((c) => c.value ?? '?'))].sort().join(', ');
    logger.info(
      { jobs: cancelled.map((c) => c.id) },
      `cancelled ${cancelled.length} queued sync job(s) of ${sources}: not in SYNC_SOURCES`,
    );
  }
  const schedules = [
    purgeSchedule,
    statisticsSchedule,
    stalenessSchedule,
    vendorAliasSchedule,
    ...notificationSchedules,
    ...syncSchedules(sync.sources, sync.schedules),
  ];
  // A fresh install (or one upgraded from before statistics) has none yet: computed once now, not at the next hour.
  if (!(await services.statistics.latest())) {
    await services.jobs.repository.enqueue([
      { name: COMPUTE_STATISTICS_JOB, dedupeKey: `${COMPUTE_STATISTICS_JOB}:start:${tickKey(new Date())}` },
    ]);
  }
  return startJobRuntime({
    repository: services.jobs.repository,
    handlers,
    schedules,
    listen: services.database.listen,
    settings: services.config.worker,
    logger,
    releaseOrphans: services.database.kind === 'embedded',
    onFinished: (name, status, seconds) => services.metrics.observeJob(name, status, seconds),
  });
}
