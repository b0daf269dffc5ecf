/**
 * Notification channels of a project (docs/notifications.md): create, read, change, delete, send a test, list the
 * deliveries; the double opt-in of email addresses outside the organization, and unsubscribing.
 *
 * Secrets (webhook URLs and header values, Slack/Teams URLs, the signing secret, the email link
 * token) are sealed at rest and never returned: reads show a URL's host and header names only. A
 * webhook's signing secret is returned once, by the create call.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { NotificationRepository, type NotificationRow } from '../db/notification.repository.ts';
import { NO_EMAIL_SERVER, type DeliveryRow, type DeliveryStatus } from '../domain/notification.ts';
import { newSigningSecret } from '../notifications/channel-sender.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { TrackerRepository } from '../db/tracker.repository.ts';
import { JobRepository } from '../db/job.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { isReservedName, NAME_MESSAGES, PROJECT_NAME } from '../domain/names.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import type { PrivateDestinations } from '../domain/outbound-allow.ts';
import type { ConfiguredChannel } from '../notifications/channel.ts';
import { configureChannel, shownConfiguration, type ChannelType } from '../notifications/channel-registry.ts';
import { emailLink } from '../notifications/channels/email/email.channel.ts';
import { AccountMailLimit } from './account-mail-limit.ts';
import { escapeHtml } from '../notifications/channels/email/email-message.ts';
import type { EmailSender } from '../notifications/channels/email/email-sender.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import type { ProjectService } from './project.service.ts';
import type { ProjectCveService } from './project-cves.service.ts';
import { payloadCve } from './automation-actions.ts';
import { ReportRepository } from '../db/report.repository.ts';
import { AutomationRepository } from '../db/automation.repository.ts';
import type { NotificationChange } from '../notifications/payload.ts';
import { emailTokenHash, type DeliveryService, type NotificationSecrets } from './delivery.service.ts';

export const CONFIRM_EMAIL_JOB = 'notifications.confirm-email';

export interface NotificationInput {
  name: string;
  type: ChannelType;
  is_enabled?: boolean | undefined;
  /** The channel's configuration (see its folder under src/notifications/channels/). */
  configuration: Record<string, unknown>;
}

export interface NotificationPatch {
  name?: string | undefined;
  is_enabled?: boolean | undefined;
  configuration?: Record<string, unknown> | undefined;
}

/** A created notification, with the webhook signing secret that only the create call returns. */
export interface CreatedNotification {
  notification: NotificationRow;
  /** Webhook only: shown once. */
  signingSecret?: string;
}

/** The limit of a service built without one (tests): the default budgets. */
const DEFAULT_LIMIT = new AccountMailLimit();

export class NotificationService {
  private readonly notifications: NotificationRepository;
  private readonly audit: AuditRepository;
  private readonly tracker: TrackerRepository;
  private readonly jobs: JobRepository;
  private readonly reports: ReportRepository;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly projects: ProjectService,
    private readonly deliveries: DeliveryService,
    private readonly box: SecretBox,
    private readonly email: {
      sender: EmailSender | undefined;
      baseUrl: string;
      /** OUTBOUND_ALLOW_PRIVATE / OUTBOUND_ALLOW_HOSTS: the non-public addresses URLs may name literally. */
      allowPrivate?: PrivateDestinations;
      /** The account-mail limit each confirmation email counts against (default: its default budgets). */
      limit?: AccountMailLimit;
    },
    private readonly projectCves: Pick<ProjectCveService, 'listCves'>,
  ) {
    this.reports = new ReportRepository(db);
    this.notifications = new NotificationRepository(db);
    this.audit = new AuditRepository(db);
    this.tracker = new TrackerRepository(db);
    this.jobs = new JobRepository(db);
  }

  async list(organizationId: string, projectName: string, page: PageRequest) {
    const project = await this.projects.findActive(organizationId, projectName);
    const count = await this.notifications.count(project.id);
    assertPageInRange(page, count);
    const items = await this.notifications.list(project.id, page.pageSize, offsetOf(page));
    return { count, items, lastDeliveries: await this.notifications.lastDeliveries(items.map((n) => n.id)) };
  }

  get(organizationId: string, projectName: string, name: string): Promise<NotificationRow> {
    return this.find(organizationId, projectName, name);
  }

  /**
   * Checks a name and configuration as create would, without creating anything (the onboarding
   * checks its alert before it creates the project): 400 naming each problem.
   */
  checkInput(input: Pick<NotificationInput, 'name' | 'type' | 'configuration'>): void {
    checkName(input.name);
    configured(input.type, input.configuration, undefined, this.email.allowPrivate);
  }

  async create(
    organizationId: string,
    projectName: string,
    input: NotificationInput,
    actor: Actor,
  ): Promise<CreatedNotification> {
    checkName(input.name);
    const project = await this.projects.findActive(organizationId, projectName);
    const sealed = configured(input.type, input.configuration, undefined, this.email.allowPrivate);
    const email = input.type === 'email' ? await this.emailState(organizationId, sealed) : undefined;
    // An address awaiting its confirmation is disabled until confirmed (as on OpenCVE).
    const row = await this.uniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        const created = await this.notifications.create(
          {
            project_id: project.id,
            name: input.name,
            type: input.type,
            is_enabled: email?.status === 'pending' ? false : (input.is_enabled ?? true),
            configuration: sealed.configuration,
            secrets: this.box.seal(sealed.secrets),
            email_status: email?.status ?? null,
            email_token_hash: email ? emailTokenHash(email.token) : null,
          },
          tx,
        );
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'notification.create',
            resourceType: 'notification',
            resourceId: created.id,
            resourceName: `${project.name}/${created.name}`,
            changes: { name: { old: null, new: created.name }, type: { old: null, new: created.type } },
          },
          tx,
        );
        if (email?.status === 'pending')
          await this.queueConfirmation(created.id, tx, actor, String(sealed.configuration.email));
        return created;
      }),
    );
    // A webhook's signing secret, made by its channel, is shown this once.
    const signingSecret = sealed.secrets.signing_secret;
    return typeof signingSecret === 'string' ? { notification: row, signingSecret } : { notification: row };
  }

  async update(
    organizationId: string,
    projectName: string,
    name: string,
    patch: NotificationPatch,
    actor: Actor,
  ): Promise<NotificationRow> {
    if (patch.name !== undefined) checkName(patch.name);
    const current = await this.find(organizationId, projectName, name);
    const values: Parameters<NotificationRepository['update']>[1] = {};
    const changes: Record<string, { old: unknown; new: unknown }> = {};
    if (patch.name !== undefined && patch.name !== current.name) {
      values.name = patch.name;
      changes.name = { old: current.name, new: patch.name };
    }
    if (patch.is_enabled !== undefined && patch.is_enabled !== current.is_enabled) {
      values.is_enabled = patch.is_enabled;
      changes.is_enabled = { old: current.is_enabled, new: patch.is_enabled };
    }
    let pending = false;
    let confirmTo = '';
    if (patch.configuration !== undefined) {
      // The sealed secrets are opened once the configuration is known to be valid (a 400 first).
      let previous: NotificationSecrets | undefined;
      const opened = () => (previous ??= this.box.open<NotificationSecrets>(current.secrets));
      const sealed = configured(current.type, patch.configuration, opened, this.email.allowPrivate);
      const old = opened();
      if (current.type === 'email') {
        if (sealed.configuration.email === current.configuration.email) {
          sealed.secrets.email_token = old.email_token;
        } else {
          const email = await this.emailState(organizationId, sealed);
          values.email_status = email.status;
          values.email_token_hash = emailTokenHash(email.token);
          pending = email.status === 'pending';
          confirmTo = String(sealed.configuration.email);
          // A new address to confirm disables the notification until it is confirmed (as on OpenCVE).
          if (pending && current.is_enabled) {
            values.is_enabled = false;
            changes.is_enabled = { old: true, new: false };
          } else if (pending) {
            delete values.is_enabled;
            delete changes.is_enabled;
          }
        }
      }
      values.configuration = sealed.configuration;
      values.secrets = this.box.seal(sealed.secrets);
      changes.configuration = { old: current.configuration, new: sealed.configuration };
    }
    if (!Object.keys(values).length) return current;
    return this.uniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        const updated = await this.notifications.update(current.id, values, tx);
        // Automations send by name: they follow a rename.
        if (values.name)
          await new AutomationRepository(tx).renameNotification(
            current.project_id,
            current.name,
            values.name,
            tx,
          );
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'notification.update',
            resourceType: 'notification',
            resourceId: current.id,
            resourceName: `${projectName}/${updated.name}`,
            changes,
          },
          tx,
        );
        if (pending) await this.queueConfirmation(current.id, tx, actor, confirmTo);
        return updated;
      }),
    );
  }

  async delete(organizationId: string, projectName: string, name: string, actor: Actor): Promise<void> {
    const current = await this.find(organizationId, projectName, name);
    await this.db.transaction().execute(async (tx) => {
      await this.notifications.delete(current.id, tx);
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'notification.delete',
          resourceType: 'notification',
          resourceId: current.id,
          resourceName: `${projectName}/${current.name}`,
          changes: { name: { old: current.name, new: null } },
        },
        tx,
      );
    });
  }

  /**
   * Sends a sample payload now (the project's most recently updated CVE, as if it had just entered the
   * project; no CVE when the project has none yet); the attempt is recorded as a `test` delivery.
   */
  /** Whether email can be sent at all (SMTP_URL set): `notificationState` reads it. */
  get emailConfigured(): boolean {
    return this.email.sender !== undefined;
  }

  async sendTest(
    organizationId: string,
    organizationName: string,
    projectName: string,
    name: string,
  ): Promise<DeliveryRow> {
    const n = await this.find(organizationId, projectName, name);
    const now = new Date();
    const { items } = await this.projectCves.listCves(
      organizationId,
      projectName,
      { filters: {}, ordering: '-updated_at' },
      { page: 1, pageSize: 1 },
    );
    const sample = items[0]
      ? (await this.reports.cveSummaries([items[0].cve_id])).get(items[0].cve_id)
      : undefined;
    const changes: NotificationChange[] = sample
      ? [
          {
            cve: payloadCve(sample.cve_id, sample),
            events: [{ type: 'cve_enters_project', details: { test: true } }],
          },
        ]
      : [];
    return this.deliveries.sendTest(
      {
        notification: n,
        kind: 'test',
        organization: organizationName,
        project: projectName,
        title: `Test notification from vulntrack for ${projectName}`,
        period: { start: now, end: now },
        changes,
      },
      n,
    );
  }

  /**
   * The deliveries, newest first, and when the next attempt of each pending one is due, with their
   * notification (a page shows both).
   */
  async listDeliveries(organizationId: string, projectName: string, name: string, page: PageRequest) {
    const n = await this.find(organizationId, projectName, name);
    const count = await this.notifications.countDeliveries(n.id);
    assertPageInRange(page, count);
    const items = await this.notifications.listDeliveries(n.id, page.pageSize, offsetOf(page));
    return { notification: n, count, items, nextAttempts: await this.deliveries.nextAttempts(items) };
  }

  /** One delivery of the notification (a test's keeps its masked HTTP exchange). */
  async getDelivery(
    organizationId: string,
    projectName: string,
    name: string,
    id: string,
  ): Promise<{ notification: NotificationRow; delivery: DeliveryRow; nextAttempt: Date | undefined }> {
    const n = await this.find(organizationId, projectName, name);
    const delivery = UUID.test(id) ? await this.notifications.findDelivery(n.id, id) : undefined;
    if (!delivery) throw new AppError('not_found');
    const next = await this.deliveries.nextAttempts([delivery]);
    return { notification: n, delivery, nextAttempt: next.get(delivery.id) };
  }

  /**
   * Sends a dead or failed delivery (not a test) once more, now (the job queue's next turn); audited
   * `delivery.retry`. 400 when the delivery is pending or succeeded.
   */
  async retryDelivery(
    organizationId: string,
    projectName: string,
    name: string,
    id: string,
    actor: Actor,
  ): Promise<void> {
    const n = await this.find(organizationId, projectName, name);
    const delivery = UUID.test(id) ? await this.notifications.findDelivery(n.id, id) : undefined;
    if (!delivery) throw new AppError('not_found');
    await this.db.transaction().execute(async (tx) => {
      const was: DeliveryStatus | undefined = await this.deliveries.reopen(tx, n.id, delivery.id);
      if (!was)
        throw validationError({
          delivery: [
            delivery.kind === 'test'
              ? 'A test is not retried: send a new one.'
              : `Only a dead or failed delivery can be retried; this one is ${delivery.status}.`,
          ],
        });
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'delivery.retry',
          resourceType: 'notification',
          resourceId: n.id,
          resourceName: `${projectName}/${n.name}`,
          changes: { delivery: { old: null, new: delivery.id }, status: { old: was, new: 'pending' } },
        },
        tx,
      );
    });
  }

  /**
   * A webhook's new signing secret, returned this once: every later request is signed with it (the
   * previous one stops at once). Audited `notification.rotate_secret`, without the secret.
   */
  async rotateSigningSecret(
    organizationId: string,
    projectName: string,
    name: string,
    actor: Actor,
  ): Promise<string> {
    const current = await this.find(organizationId, projectName, name);
    if (current.type !== 'webhook') throw validationError({ type: ['Only a webhook has a signing secret.'] });
    let secrets: NotificationSecrets;
    try {
      secrets = this.box.open<NotificationSecrets>(current.secrets);
    } catch {
      throw new AppError(
        'conflict',
        'The settings of this webhook cannot be read (was VULNTRACK_SECRET changed?): set its URL again first.',
      );
    }
    const signingSecret = newSigningSecret();
    await this.db.transaction().execute(async (tx) => {
      await this.notifications.update(
        current.id,
        { secrets: this.box.seal({ ...secrets, signing_secret: signingSecret }) },
        tx,
      );
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'notification.rotate_secret',
          resourceType: 'notification',
          resourceId: current.id,
          resourceName: `${projectName}/${current.name}`,
        },
        tx,
      );
    });
    return signingSecret;
  }

  /**
   * Sends the confirmation email of an address awaiting it again (the same link); 400 when the
   * notification is not an email awaiting confirmation.
   */
  async resendConfirmation(
    organizationId: string,
    projectName: string,
    name: string,
    actor: Actor,
  ): Promise<void> {
    const current = await this.find(organizationId, projectName, name);
    if (current.type === 'email' && !this.emailConfigured)
      throw validationError({ email: [NO_EMAIL_SERVER] });
    if (current.type !== 'email' || current.email_status !== 'pending')
      throw validationError({ email: ['This address is not awaiting its confirmation.'] });
    await this.db.transaction().execute(async (tx) => {
      await this.queueConfirmation(current.id, tx, actor, String(current.configuration.email));
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'notification.resend_confirmation',
          resourceType: 'notification',
          resourceId: current.id,
          resourceName: `${projectName}/${current.name}`,
        },
        tx,
      );
    });
  }

  /**
   * Confirms the email address whose link carries `token`, which enables the notification (it was
   * disabled while the address waited); false for an unknown token.
   */
  async confirmEmail(token: string): Promise<boolean> {
    const n = await this.byToken(token);
    if (!n) return false;
    if (n.email_status === 'pending') await this.notifications.setEmailStatus(n.id, 'confirmed', true);
    return true;
  }

  /** Unsubscribes the email address whose link carries `token`; false for an unknown token. */
  async unsubscribe(token: string): Promise<boolean> {
    const n = await this.byToken(token);
    if (!n) return false;
    await this.notifications.setEmailStatus(n.id, 'unsubscribed');
    return true;
  }

  /** Sends the confirmation email of a pending address (the `notifications.confirm-email` job). */
  async sendConfirmation(notificationId: string): Promise<void> {
    const n = await this.notifications.findById(notificationId);
    if (!n || n.type !== 'email' || n.email_status !== 'pending') return;
    if (!this.email.sender) throw new Error('SMTP_URL is not set: the confirmation email cannot be sent');
    const token = String(this.box.open<NotificationSecrets>(n.secrets).email_token);
    const confirmUrl = emailLink(this.email.baseUrl, 'confirm', token);
    const unsubscribeUrl = emailLink(this.email.baseUrl, 'unsubscribe', token);
    const text = [
      `Someone asked vulntrack to send vulnerability notifications ("${n.name}") to this address.`,
      '',
      `To receive them, confirm: ${confirmUrl}`,
      '',
      'If this was not you, ignore this message: nothing will be sent.',
    ].join('\n');
    const html = `<p>Someone asked vulntrack to send vulnerability notifications (&ldquo;${escapeHtml(n.name)}&rdquo;) to this address.</p><p><a href="${escapeHtml(confirmUrl)}">Confirm the subscription</a></p><p>If this was not you, ignore this message: nothing will be sent.</p>`;
    const result = await this.email.sender.send({
      to: String(n.configuration.email),
      subject: 'Confirm your vulntrack notifications',
      text,
      html,
      unsubscribeUrl,
      deliveryId: `confirm-${n.id}`,
    });
    if (!result.ok) throw new Error(result.error ?? 'the confirmation email was not accepted');
  }

  private async byToken(token: string): Promise<NotificationRow | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    return this.notifications.findByEmailToken(emailTokenHash(token));
  }

  /**
   * Queues the confirmation email of a notification, counted against the account-mail limit (429
   * past it, and nothing is saved: the caller's transaction rolls back); not counted without SMTP.
   */
  private async queueConfirmation(
    id: string,
    tx: Kysely<DB>,
    actor: Actor,
    recipient: string,
  ): Promise<void> {
    // Without SMTP the job could only fail in the log: the pages say why nothing is sent instead, and
    // "Resend the confirmation email" queues it once the operator has set SMTP_URL.
    if (!this.email.sender) return;
    await (this.email.limit ?? DEFAULT_LIMIT).reserve(tx, {
      kind: 'email_confirmation',
      sender: actor,
      recipient,
    });
    await new JobRepository(tx).enqueue([
      { name: CONFIRM_EMAIL_JOB, payload: { notification: id }, dedupeKey: `confirm:${id}:${Date.now()}` },
    ]);
  }

  /** A joined member's address is confirmed at once; any other must confirm by email (double opt-in). */
  private async emailState(organizationId: string, sealed: ConfiguredChannel) {
    const token = randomBytes(24).toString('base64url');
    sealed.secrets.email_token = token;
    const member = await this.tracker.joinedMember(organizationId, String(sealed.configuration.email));
    return { status: member ? ('confirmed' as const) : ('pending' as const), token };
  }

  private async find(organizationId: string, projectName: string, name: string): Promise<NotificationRow> {
    const project = await this.projects.findActive(organizationId, projectName);
    const row = PROJECT_NAME.test(name) ? await this.notifications.findByName(project.id, name) : undefined;
    if (!row) throw new AppError('not_found');
    return row;
  }

  private async uniqueName<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) throw validationError({ name: [NAME_MESSAGES.notification.taken] });
      throw err;
    }
  }
}

/**
 * Where a notification sends, as it may be shown (never a secret): an email address, a webhook's
 * host, a Slack or Teams URL with its path masked.
 */
export function shownTarget(n: Pick<NotificationRow, 'type' | 'configuration'>): string {
  const shown = shownConfiguration(n.type, n.configuration);
  if (n.type === 'email') return String(shown.email ?? '');
  if (n.type === 'webhook') return shown.host ? `${String(shown.host)} (URL path hidden)` : '';
  return String(shown.webhook_url ?? '');
}

/** The header names of a webhook (their values are secret). */
export function webhookHeaderNames(n: Pick<NotificationRow, 'type' | 'configuration'>): string[] {
  if (n.type !== 'webhook') return [];
  const names = shownConfiguration(n.type, n.configuration).header_names;
  return Array.isArray(names) ? names.map(String) : [];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function checkName(name: string): void {
  if (!PROJECT_NAME.test(name)) {
    throw validationError({
      name: ['starts with a letter or digit; letters, digits, spaces and _ . - only; at most 100 characters'],
    });
  }
  if (isReservedName(name)) throw validationError({ name: [NAME_MESSAGES.notification.reserved] });
}

/** Splits a configuration into what may be shown and what is sealed; 400 for anything unusable. */
function configured(
  type: ChannelType,
  input: Record<string, unknown>,
  previous?: () => NotificationSecrets,
  allowPrivate: PrivateDestinations = false,
): ConfiguredChannel {
  const result = configureChannel(type, input, previous, allowPrivate);
  if ('problems' in result) throw validationError({ configuration: result.problems });
  return result;
}
