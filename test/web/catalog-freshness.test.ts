/**
 * Issue 31, item 9: the catalog says how current it is. The freshness line on the catalog pages and
 * the organization overview, the banner of every page when sync is off or a configured source is
 * failing or stale, and the hourly staleness alarm that emails the owners once per stale episode.
 * Sync states are written into the database as a sync round leaves them.
 */
import { sql } from 'kysely';
import type pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.ts';
import { AccountRepository } from '../../src/db/account.repository.ts';
import { SyncStateRepository } from '../../src/db/sync-state.repository.ts';
import { handleCheckStaleness } from '../../src/jobs/handlers.ts';
import { stalenessSchedule } from '../../src/jobs/scheduler.ts';
import { CHECK_STALENESS_JOB } from '../../src/services/freshness.service.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { fixture } from '../helpers/catalog.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn, type WebClient } from '../helpers/web.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';
import type { Database } from '../../src/db/client.ts';

const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface StateAt {
  /** How long ago the last success was; null: never. */
  successAgo: number | null;
  failures?: number;
  error?: string;
  /** How long ago the first attempt was (default: a week). */
  firstAttemptAgo?: number;
}

/** Writes the sync states as rounds leave them (other sources' rows removed). */
async function writeStates(database: Database, states: Record<string, StateAt>): Promise<void> {
  const now = Date.now();
  await sql`DELETE FROM sync_state`.execute(database.db);
  for (const [source, s] of Object.entries(states)) {
    const at = (ago: number | null) => (ago === null ? null : new Date(now - ago));
    await database.db
      .insertInto('sync_state')
      .values({
        source,
        cursor: '{}',
        last_attempt_at: new Date(now - MINUTE),
        first_attempt_at: at(s.firstAttemptAgo ?? 7 * DAY),
        last_success_at: at(s.successAgo),
        consecutive_failures: s.failures ?? 0,
        last_error: s.error ?? null,
        last_error_at: s.failures ? new Date(now - MINUTE) : null,
      })
      .execute();
  }
}

const freshLine = (page: { html: { querySelector(s: string): { text: string } | null } }) =>
  page.html.querySelector('[data-freshness]')?.text.replace(/\s+/g, ' ').trim();
const banner = (page: { html: { querySelector(s: string): { text: string } | null } }) =>
  page.html.querySelector('[data-freshness-banner]')?.text.replace(/\s+/g, ' ').trim();

describeEachDatabase('web: the catalog freshness', (use) => {
  let api: TestApi;
  let browser: WebClient;

  beforeAll(async () => {
    api = await buildTestApi(use(), { SYNC_SOURCES: 'cve5,nvd,kev,epss' });
    await api.services.imports.importInputs(sources.nvd, [fixture('nvd', 'CVE-2023-4863.json')]);
    const owner = await createOrganization(api.services, 'fresh');
    browser = await signedIn(api, owner.user.username, PASSWORD);
  }, 60_000);
  afterAll(() => api.close());

  it('shows when each source last advanced, in words, on the catalog pages and the overview', async () => {
    await writeStates(use(), {
      cve5: { successAgo: 12 * MINUTE + 5000 },
      nvd: { successAgo: 3 * HOUR + MINUTE },
      kev: { successAgo: DAY + HOUR },
      epss: { successAgo: null, firstAttemptAgo: MINUTE },
      cwe: { successAgo: 5 * DAY }, // not configured any more: shown, marked, never stale
    });
    api.services.freshness.forget();
    const expected =
      'Catalog: CVE records (CVE Program) 12 min ago · NVD 3 h ago · CISA KEV 25 h ago · ' +
      'EPSS not synced yet · CWE 5 d ago (sync off)';
    for (const url of ['/cves', '/cves/CVE-2023-4863', '/statistics', '/org/fresh/overview']) {
      const page = await browser.get(url);
      expect(page.status, url).toBe(200);
      expect(freshLine(page), url).toBe(expected);
      expect(banner(page), url).toBeUndefined();
    }
    // The exact time is in the element for the tooltip and machines.
    const time = (await browser.get('/cves')).html.querySelector('[data-freshness] time');
    expect(Date.now() - Date.parse(time!.getAttribute('datetime')!)).toBeGreaterThan(12 * MINUTE);
  });

  it('names a stale source and a failing one in the banner of every page', async () => {
    await writeStates(use(), {
      cve5: { successAgo: 10 * MINUTE },
      nvd: { successAgo: 3 * DAY, failures: 12, error: 'getaddrinfo ENOTFOUND services.nvd.nist.gov' },
      kev: { successAgo: HOUR, failures: 1, error: 'The server answered 503.' },
      epss: { successAgo: HOUR },
    });
    api.services.freshness.forget();
    for (const url of ['/cves', '/org/fresh/members', '/account']) {
      const page = await browser.get(url);
      expect(page.status, url).toBe(200);
      expect(banner(page), url).toMatch(/^The catalog may be out of date\. Sync is behind:/);
      const items = page.html
        .querySelectorAll('[data-freshness-banner] li')
        .map((li) => li.text.replace(/\s+/g, ' ').trim());
      expect(items, url).toEqual([
        'NVD last advanced 3 d ago (stale after 48 h); the last 12 attempts failed: getaddrinfo ENOTFOUND services.nvd.nist.gov',
        'CISA KEV last advanced 1 h ago; the last attempt failed: The server answered 503.',
      ]);
    }
    expect(freshLine(await browser.get('/cves'))).toContain('NVD 3 d ago (stale)');
  });

  it('keeps one read for a short while: a page does not query the sync states again', async () => {
    await writeStates(use(), { cve5: { successAgo: MINUTE }, nvd: { successAgo: MINUTE } });
    api.services.freshness.forget();
    expect(banner(await browser.get('/cves'))).toBeUndefined();
    await writeStates(use(), { cve5: { successAgo: 7 * HOUR } });
    expect(banner(await browser.get('/cves'))).toBeUndefined();
    api.services.freshness.forget();
    expect(banner(await browser.get('/cves'))).toContain('CVE records (CVE Program) last advanced 7 h ago');
  });

  it('says sync is off, and what the catalog holds, with SYNC_SOURCES=none', async () => {
    await sql`DELETE FROM sync_state`.execute(use().db);
    const off = await buildTestApi(use(), { SYNC_SOURCES: 'none' });
    try {
      const owner = await createOrganization(off.services, 'frozen');
      const client = await signedIn(off, owner.user.username, PASSWORD);
      const page = await client.get('/cves');
      expect(banner(page)).toBe(
        'Sync is off (SYNC_SOURCES=none): this catalog is not updated; it holds 1 CVE, last imported just now. ' +
          'New CVEs and changes upstream do not appear here.',
      );
      // The banner says it all: no freshness line repeating it.
      expect(freshLine(page)).toBeUndefined();
      expect(banner(await client.get('/org/frozen/overview'))).toContain('Sync is off (SYNC_SOURCES=none)');
    } finally {
      await off.close();
    }
  });
});

describeEachDatabase('the staleness alarm', (use) => {
  let sink: Sink;
  let api: TestApi;
  const warnings: string[] = [];
  const logger = {
    info: () => undefined,
    warn: (...args: unknown[]) => void warnings.push(String(args[1])),
  } as unknown as Pick<pino.Logger, 'info' | 'warn'>;
  let check: () => Promise<void>;
  const mails = () => sink.messages.map((m) => `${m.to.join(',')}: ${m.mail.subject ?? ''}`).sort();

  beforeAll(async () => {
    sink = await startSink();
    api = await buildTestApi(use(), {
      SYNC_SOURCES: 'cve5,nvd',
      SMTP_URL: sink.url,
      VULNTRACK_BASE_URL: 'https://vt.example.org',
    });
    const first = await createOrganization(api.services, 'alarm-one');
    await createOrganization(api.services, 'alarm-two');
    // An owner invited but not joined yet gets nothing (nor does the invitation email count below).
    await api.services.members.invite(
      first.org.id,
      { email: 'pending@alarm.example', role: 'owner' },
      first.actor,
    );
    sink.messages.length = 0;
    const handler = handleCheckStaleness({ freshness: api.services.freshness, logger });
    check = () => handler({}, { id: 1, workerId: 'test', signal: new AbortController().signal } as never);
  });
  afterAll(async () => {
    await api.close();
    await sink.close();
  });

  it('emails the owners once per stale episode, never for a source not configured', async () => {
    await writeStates(use(), {
      cve5: { successAgo: 30 * MINUTE },
      nvd: { successAgo: 3 * DAY, failures: 40, error: 'getaddrinfo ENOTFOUND services.nvd.nist.gov' },
      kev: { successAgo: 30 * DAY }, // turned off: no alarm however old
    });
    await check();
    const owners = await new AccountRepository(use().db).ownerAddresses();
    expect(owners.length).toBe(2);
    expect(owners).not.toContain('pending@alarm.example');
    expect(mails()).toEqual(
      owners.map((to) => `${to}: vulntrack: NVD data is stale (last advanced 3 d ago)`),
    );
    const text = sink.messages[0]!.mail.text ?? '';
    expect(text).toContain('https://vt.example.org');
    expect(text).toContain('SYNC_STALE_HOURS_NVD: 48 h');
    expect(text).toContain('getaddrinfo ENOTFOUND services.nvd.nist.gov');
    // The next hours of the same episode send nothing more.
    await check();
    await check();
    expect(sink.messages.length).toBe(2);
  });

  it('emails again after the source advanced and went stale again', async () => {
    const states = new SyncStateRepository(use().db);
    await states.recordSuccess('nvd');
    expect((await states.get('nvd'))!.staleAlertedAt).toBeNull();
    await check();
    expect(sink.messages.length).toBe(2);
    // Time passes without another success: a new episode.
    await sql`UPDATE sync_state SET last_success_at = now() - interval '50 hours' WHERE source = 'nvd'`.execute(
      use().db,
    );
    await check();
    await check();
    expect(sink.messages.length).toBe(4);
    expect(sink.messages.slice(2).map((m) => m.mail.subject)).toEqual([
      'vulntrack: NVD data is stale (last advanced 2 d ago)',
      'vulntrack: NVD data is stale (last advanced 2 d ago)',
    ]);
  });

  it('counts a source that never succeeded from its first attempt', async () => {
    await writeStates(use(), { cve5: { successAgo: null, failures: 30, firstAttemptAgo: 7 * HOUR } });
    await check();
    expect(sink.messages.length).toBe(6);
    expect(sink.messages[5]!.mail.subject).toBe(
      'vulntrack: CVE records (CVE Program) data is stale (never synced)',
    );
  });

  it('dates a source from its first attempt, also when a cursor made its row first', async () => {
    await sql`DELETE FROM sync_state`.execute(use().db);
    const states = new SyncStateRepository(use().db);
    await states.saveCursor('nvd', { lastModEnd: '2024-01-01T00:00:00.000Z' });
    expect((await states.get('nvd'))!.firstAttemptAt).toBeNull();
    await states.recordAttempt('nvd');
    const first = (await states.get('nvd'))!.firstAttemptAt!;
    expect(first).toBeInstanceOf(Date);
    await states.recordAttempt('nvd');
    expect((await states.get('nvd'))!.firstAttemptAt).toEqual(first);
  });

  it('without SMTP logs one warning per episode and sends nothing', async () => {
    const quiet = await buildTestApi(use(), { SYNC_SOURCES: 'cve5,nvd' });
    try {
      await writeStates(use(), { cve5: { successAgo: MINUTE }, nvd: { successAgo: 3 * DAY } });
      const run = handleCheckStaleness({ freshness: quiet.services.freshness, logger });
      const context = { id: 2, workerId: 'test', signal: new AbortController().signal } as never;
      warnings.length = 0;
      await run({}, context);
      await run({}, context);
      expect(warnings).toEqual(['NVD is stale; no email to the owners: SMTP_URL is not set']);
      expect(sink.messages.length).toBe(6);
    } finally {
      await quiet.close();
    }
  });
});

describe('the staleness settings', () => {
  it('default to 6 h for CVE records, 48 h for NVD, KEV and EPSS, 30 d for CWE', () => {
    expect(parseConfig({}).sync.staleAfterMs).toEqual({
      cve5: 6 * HOUR,
      nvd: 48 * HOUR,
      kev: 48 * HOUR,
      epss: 48 * HOUR,
      cwe: 30 * DAY,
    });
    expect(
      parseConfig({ SYNC_STALE_HOURS_EPSS: '0', SYNC_STALE_HOURS_NVD: '12' }).sync.staleAfterMs,
    ).toMatchObject({
      epss: null,
      nvd: 12 * HOUR,
    });
  });

  it('stop the start with a message naming the variable for a bad value', () => {
    for (const value of ['6h', '-1', '1.5', '9000'])
      expect(() => parseConfig({ SYNC_STALE_HOURS_NVD: value })).toThrow(
        new ConfigError(`SYNC_STALE_HOURS_NVD must be a whole number from 0 to 8760 (got "${value}")`),
      );
  });

  it('are checked every hour by one deduplicated job per tick', () => {
    const tick = new Date('2026-01-01T10:41:00Z');
    expect(stalenessSchedule.pattern).toBe('41 * * * *');
    expect(stalenessSchedule.job(tick)).toEqual({
      name: CHECK_STALENESS_JOB,
      dedupeKey: `${CHECK_STALENESS_JOB}:2026-01-01T10:41:00Z`,
    });
  });
});
