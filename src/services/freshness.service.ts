/**
 * How current the catalog is, for the pages (the freshness line and the banner) and for the alarm
 * (issue 31, docs/sync.md "Staleness"). Pages read it on every request, so one small read (the
 * `sync_state` rows) is kept for a short while in this process.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { HealthRepository } from '../db/health.repository.ts';
import { SyncStateRepository } from '../db/sync-state.repository.ts';
import { SYNC_SOURCE_NAMES, type SyncConfig } from '../config.ts';
import {
  ago,
  duration,
  sourceFreshness,
  type CatalogFreshness,
  type SourceFreshness,
} from '../domain/freshness.ts';
import type { EmailSender } from '../notifications/channels/email/email-sender.ts';
import { escapeHtml } from '../notifications/channels/email/email-message.ts';

/** The hourly check that emails the owners about a stale source. */
export const CHECK_STALENESS_JOB = 'sync.staleness';

/** How long a page's read of the freshness is reused in this process. */
const CACHE_MS = 30_000;

export interface FreshnessMail {
  /** The SMTP sender; none without SMTP_URL (the alarm then only logs, and the banner shows). */
  sender: EmailSender | undefined;
  baseUrl: string;
}

/** One stale episode alerted by `alertStale`. */
export interface StaleAlert {
  source: string;
  label: string;
  /** `not_configured`: no SMTP_URL, nothing was sent. */
  email: 'sent' | 'not_configured';
  recipients: number;
  /** Recipients whose email the SMTP server did not take (one attempt each). */
  failed: number;
}

export class FreshnessService {
  private readonly states: SyncStateRepository;
  private readonly health: HealthRepository;
  private readonly accounts: AccountRepository;
  private cached: { value: CatalogFreshness; until: number } | undefined;

  constructor(
    db: Kysely<DB>,
    private readonly sync: Pick<SyncConfig, 'sources' | 'staleAfterMs'>,
    private readonly mail: FreshnessMail = { sender: undefined, baseUrl: 'http://localhost:8000' },
  ) {
    this.states = new SyncStateRepository(db);
    this.health = new HealthRepository(db);
    this.accounts = new AccountRepository(db);
  }

  /** The freshness as read at most CACHE_MS ago (what every page shows). */
  async current(): Promise<CatalogFreshness> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.value;
    const value = await this.read();
    this.cached = { value, until: Date.now() + CACHE_MS };
    return value;
  }

  /** Drops the kept read: the next page reads the database again. */
  forget(): void {
    this.cached = undefined;
  }

  /** The freshness now, from the database. */
  async read(now = new Date()): Promise<CatalogFreshness> {
    const states = new Map((await this.states.list()).map((s) => [s.source, s]));
    const configured = new Set<string>(this.sync.sources);
    const sources = SYNC_SOURCE_NAMES.filter(
      (source) => configured.has(source) || states.get(source)?.lastSuccessAt,
    ).map((source) =>
      sourceFreshness(
        source,
        states.get(source),
        configured.has(source),
        this.sync.staleAfterMs[source],
        now,
      ),
    );
    const syncOff = this.sync.sources.length === 0;
    return { at: now, syncOff, sources, catalog: syncOff ? await this.health.catalogSummary() : null };
  }

  /**
   * Emails every organization's owners once per stale episode of each configured source (the
   * hourly `sync.staleness` job). Idempotent: an episode is claimed in the database before its
   * email goes out, so another process or a retried job sends nothing more; a success of the
   * source ends the episode. Without SMTP the episode is claimed all the same (one log line, not
   * one an hour). Sources not in SYNC_SOURCES never count as stale.
   */
  async alertStale(now = new Date()): Promise<StaleAlert[]> {
    const freshness = await this.read(now);
    const alerts: StaleAlert[] = [];
    for (const source of freshness.sources.filter((s) => s.stale)) {
      if (!(await this.states.claimStaleAlert(source.source))) continue;
      const recipients = await this.accounts.ownerAddresses();
      const alert: StaleAlert = {
        source: source.source,
        label: source.label,
        email: this.mail.sender ? 'sent' : 'not_configured',
        recipients: recipients.length,
        failed: 0,
      };
      if (this.mail.sender) {
        const message = staleMessage(source, now, this.mail.baseUrl);
        for (const to of recipients) {
          const result = await this.mail.sender.send({
            to,
            ...message,
            deliveryId: `stale-${source.source}-${now.getTime()}-${to}`,
          });
          if (!result.ok) alert.failed++;
        }
      }
      alerts.push(alert);
    }
    if (alerts.length) this.forget();
    return alerts;
  }
}

function staleMessage(
  source: SourceFreshness,
  now: Date,
  baseUrl: string,
): { subject: string; text: string; html: string } {
  const since = source.lastSuccessAt
    ? `It last advanced ${ago(source.lastSuccessAt, now)} (${source.lastSuccessAt.toISOString()})`
    : 'It has never completed a sync';
  const setting = `SYNC_STALE_HOURS_${source.source.toUpperCase()}: ${duration(source.staleAfterMs ?? 0)}`;
  const failing = source.consecutiveFailures
    ? `Its last ${source.consecutiveFailures} attempt(s) failed; the latest error: ${source.lastError ?? 'unknown'}`
    : 'No attempt failed: check that the worker runs (vulntrack serve or vulntrack worker).';
  const lines = [
    `${source.label} data in the vulntrack catalog at ${baseUrl} is stale.`,
    `${since}, longer than its staleness setting (${setting}).`,
    failing,
    `Until it advances, the catalog shows ${source.label} as it was then. The server's log and ${baseUrl}/readyz tell more.`,
    'You get this email once, as an owner of an organization; once the source advances again, a new stale spell sends another.',
  ];
  return {
    subject: `vulntrack: ${source.label} data is stale (${source.lastSuccessAt ? `last advanced ${ago(source.lastSuccessAt, now)}` : 'never synced'})`,
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join(''),
  };
}
