/**
 * CLI commands that work on the services, each declared once (command.ts). Each runs in this process,
 * or (while `serve` holds the embedded data dir) inside the running server, handed over the control
 * socket: the same code either way, with a serializable result.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Services } from '../services/services.ts';
import type { ImportProgress, ImportReport } from '../domain/import-report.ts';
import { isSourceName, SOURCE_NAMES, type SourceName } from '../sources/source.ts';
import { AppError } from '../domain/errors.ts';
import { SYSTEM_ACTOR, type Actor } from '../domain/actor.ts';
import { isScope, SCOPES, type Scope } from '../domain/scopes.ts';
import type { JobsOverview, JobSummary } from '../services/job.service.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';
import { commandKey, serviceCommand, type CommandResult, type ServiceCommand } from './command.ts';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';
import type { SyncReport } from '../services/sync.service.ts';
import { VENDOR_COMMANDS } from './vendor-commands.ts';

export type { CommandResult };

/** Commands that stop early when their signal is aborted and still answer (others run to the end). */
export const CANCELLABLE_COMMANDS: ReadonlySet<string> = new Set(['import']);

function progressLine(p: ImportProgress): string {
  const rate = p.elapsedMs ? Math.round((p.records / p.elapsedMs) * 1000) : 0;
  const saved = p.counts.imported + p.counts.updated + p.counts.unchanged + p.counts.pending;
  if (p.step === 'search-index') {
    return `${p.source}: ${formatNumber(p.records)} records read; building the search index (the catalog was empty)`;
  }
  return (
    `${p.source}: ${formatNumber(p.records)} records read (${formatNumber(rate)}/s), ` +
    `${formatNumber(saved)} saved, ${formatNumber(p.counts.skipped)} skipped`
  );
}

function importSummary(r: ImportReport): string {
  const c = r.counts;
  const parts = [
    `${formatNumber(c.imported)} imported`,
    `${formatNumber(c.updated)} updated`,
    `${formatNumber(c.unchanged)} unchanged`,
    `${formatNumber(c.skipped)} skipped`,
  ];
  if (c.pending) parts.push(`${formatNumber(c.pending)} kept for CVEs not in the catalog yet`);
  return `${r.source}: ${parts.join(', ')}; ${formatNumber(r.changes)} changes recorded (${(r.durationMs / 1000).toFixed(1)} s)`;
}

function jobLine(j: JobSummary): string {
  const payload = Object.keys(j.payload).length ? ` ${JSON.stringify(j.payload)}` : '';
  const head = `  #${j.id} ${j.name}${payload}, attempt ${j.attempts}/${j.max_attempts}`;
  switch (j.status) {
    case 'running':
      return `${head} on ${j.locked_by ?? '?'} since ${j.started_at ?? '?'}, lease until ${j.lease_until ?? '?'}`;
    case 'pending':
      return `${head} failed, next attempt at ${j.run_at}: ${j.last_error ?? ''}`;
    case 'failed':
    case 'dead':
    case 'succeeded':
      return `${head} ${j.status} at ${j.finished_at ?? '?'}: ${j.last_error ?? ''}`;
  }
}

function jobsText(o: JobsOverview): string {
  const c = o.counts;
  const waiting = o.oldest_pending_seconds === null ? '' : ` (oldest waiting ${o.oldest_pending_seconds} s)`;
  const lines = [
    `jobs: ${formatNumber(c.pending)} pending${waiting}, ${formatNumber(c.running)} running, ` +
      `${formatNumber(c.succeeded)} succeeded, ${formatNumber(c.failed)} failed, ${formatNumber(c.dead)} dead`,
  ];
  const section = (title: string, jobs: JobSummary[]) => {
    if (jobs.length) lines.push(`${title}:`, ...jobs.map(jobLine));
  };
  section('running', o.running);
  section('waiting to retry', o.retrying);
  section('failed (no retry)', o.failed);
  section('dead (all attempts failed; `vulntrack jobs retry <id>` queues one again)', o.dead);
  return lines.join('\n');
}

/**
 * The actor of an administrative command on an organization: the named user when given (who must
 * be a joined member, as the audit log will credit them), else the system.
 */
async function actorFor(
  services: Services,
  org: { id: string; name: string },
  username: string | undefined,
): Promise<Actor> {
  if (!username) return SYSTEM_ACTOR;
  try {
    return await services.accounts.memberActor(org.id, username);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found')
      throw new UsageError(`no user named "${username}"`);
    if (err instanceof AppError && err.code === 'permission_denied')
      throw new UsageError(`"${username}" is not a member of ${org.name}; name one of its members`);
    throw err;
  }
}

function syncSummary(r: SyncReport): string {
  const c = r.counts;
  const counts = `${formatNumber(c.imported)} imported, ${formatNumber(c.updated)} updated, ${formatNumber(c.unchanged)} unchanged, ${formatNumber(c.skipped)} skipped`;
  const notes = r.notes.length ? `; ${r.notes.join('; ')}` : '';
  return `${r.source}: ${counts}; ${formatNumber(r.changes)} changes recorded (${(r.durationMs / 1000).toFixed(1)} s)${notes}`;
}

const collectProducts = (values: string[]): Record<string, string[]> => {
  const products: Record<string, string[]> = {};
  for (const p of values) {
    const i = p.indexOf(':');
    if (i <= 0 || i === p.length - 1) throw new UsageError(`--product takes VENDOR:PRODUCT, not "${p}"`);
    (products[p.slice(0, i)] ??= []).push(p.slice(i + 1));
  }
  return products;
};

/** One sync round of each named source (default: SYNC_SOURCES), one after the other; a failure does not stop the rest. */
const sync = serviceCommand({
  name: 'sync',
  description: 'one sync round from the configured upstreams, now (default: every source of SYNC_SOURCES)',
  arguments: [{ name: '[sources...]', description: 'cve5 | nvd | kev | epss | cwe' }],
  args: (sources: string[]) => {
    const unknown = sources.filter((s) => !(SYNC_SOURCE_NAMES as readonly string[]).includes(s));
    if (unknown.length)
      throw new UsageError(`unknown source "${unknown[0]}"; use one of ${SYNC_SOURCE_NAMES.join(', ')}`);
    return { sources: sources as SyncSourceName[] };
  },
  async run(services, args, progress) {
    const list = args.sources.length ? args.sources : services.config.sync.sources;
    if (!list.length) throw new UsageError('no source to sync: SYNC_SOURCES is none and none was named');
    const results: (
      { status: 'succeeded'; report: SyncReport } | { status: 'failed'; source: string; error: string }
    )[] = [];
    const lines: string[] = [];
    for (const source of list) {
      try {
        const report = await services.sync.run(source, progress);
        results.push({ status: 'succeeded', report });
        lines.push(syncSummary(report));
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        results.push({ status: 'failed', source, error });
        lines.push(`${source}: failed: ${error}`);
      }
    }
    const failed = results.filter((r) => r.status === 'failed').length;
    return {
      text: lines.join('\n'),
      data: { results },
      exitCode: failed ? EXIT.failure : EXIT.ok,
      notes: failed ? [`${failed} of ${list.length} sources failed (see /readyz for details)`] : [],
    };
  },
});

const importCommand = serviceCommand({
  name: 'import',
  description: `import upstream data; source: ${SOURCE_NAMES.join(' | ')}`,
  arguments: [
    { name: '<source>', description: SOURCE_NAMES.join(' | ') },
    { name: '<paths...>', description: 'files, folders, .gz/.zip archives or http(s) URLs' },
  ],
  args: (source: string, paths: string[]): { source: SourceName; targets: string[] } => {
    if (!isSourceName(source))
      throw new UsageError(`unknown source "${source}"; use one of ${SOURCE_NAMES.join(', ')}`);
    const targets = absoluteTargets(paths);
    for (const t of targets) {
      if (!/^https?:\/\//i.test(t) && !fs.existsSync(t)) throw new UsageError(`${t}: no such file or folder`);
    }
    return { source, targets };
  },
  async run(services, { source, targets }, progress, signal) {
    // The parsers load only for an import (every other command starts without them).
    const { sources } = await import('../sources/index.ts');
    const report = await services.imports.importInputs(sources[source], targets, {
      onProgress: (p) => progress(progressLine(p)),
      ...(signal ? { signal } : {}),
    });
    // A problem without a position is about the input as a whole (KEV entries kept), not a record.
    const notes = report.problems
      .slice(0, 20)
      .map((p) => (p.position ? `skipped ${p.position}${p.id ? ` (${p.id})` : ''}: ${p.reason}` : p.reason));
    if (report.counts.skipped > 20)
      notes.push(`… and ${formatNumber(report.counts.skipped - 20)} more skipped records`);
    if (report.status === 'cancelled') {
      const c = report.counts;
      const read = c.imported + c.updated + c.unchanged + c.pending + c.skipped;
      notes.push(
        `import cancelled after ${formatNumber(read)} records; it stopped at a batch boundary: ` +
          `what it committed is kept, and the same import run again completes it`,
      );
    }
    if (report.status === 'partial') {
      notes.push(
        `the import was partial: ${formatNumber(report.counts.skipped)} malformed records were skipped`,
      );
    }
    return {
      text: importSummary(report),
      data: report,
      exitCode:
        report.status === 'cancelled' ? EXIT.cancelled : report.status === 'partial' ? EXIT.partial : EXIT.ok,
      notes,
    };
  },
});

const jobsStatus = serviceCommand({
  name: 'jobs',
  description: 'the job queue: counts by status, running jobs, retries, failed and dead jobs',
  args: () => ({}),
  async run(services) {
    const overview = await services.jobs.overview();
    return { text: jobsText(overview), data: overview, exitCode: EXIT.ok };
  },
});

const jobsRetry = serviceCommand({
  name: 'jobs retry',
  description: 'queue a dead or failed job again, with fresh attempts',
  arguments: [{ name: '<id>', description: 'the job id' }],
  args: (id: string) => {
    const n = Number(id);
    if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`"${id}" is not a job id`);
    return { id: n };
  },
  async run(services, { id }) {
    if (!(await services.jobs.retry(id))) throw new UsageError(`no dead or failed job #${id}`);
    return { text: `job #${id} queued again`, data: { id, status: 'pending' }, exitCode: EXIT.ok };
  },
});

const userCreate = serviceCommand({
  name: 'user create',
  description: 'create a user (the first admin, for example)',
  options: [
    { flags: '--username <username>', required: true },
    { flags: '--email <email>', required: true },
    {
      flags: '--password <password>',
      description: 'the password (visible in the process list: prefer --password-stdin)',
    },
    { flags: '--password-stdin', description: 'read the password from standard input' },
    { flags: '--admin', description: 'a site administrator' },
  ],
  args: (o: {
    username: string;
    email: string;
    password?: string;
    passwordStdin?: boolean;
    admin?: boolean;
  }) => {
    if (!o.password === !o.passwordStdin)
      throw new UsageError('give exactly one of --password and --password-stdin');
    const password = o.passwordStdin ? fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '') : o.password!;
    return { username: o.username, email: o.email, password, admin: o.admin === true };
  },
  async run(services, args) {
    const user = await services.accounts.createUser({
      username: args.username,
      email: args.email,
      password: args.password,
      isAdmin: args.admin,
    });
    return {
      text: `created user ${user.username}${user.is_admin ? ' (admin)' : ''}`,
      data: { id: user.id, username: user.username, email: user.email, is_admin: user.is_admin },
      exitCode: EXIT.ok,
    };
  },
});

const userList = serviceCommand({
  name: 'user list',
  description: 'list the users: username, email, administrator, created, two-factor sign-in on or off',
  args: () => ({}),
  async run(services) {
    const users = await services.accounts.listUsers();
    const rows = users.map((u) => ({
      username: u.username,
      email: u.email,
      is_admin: u.isAdmin,
      created_at: u.createdAt.toISOString(),
      two_factor: u.twoFactor,
    }));
    const lines = rows.map(
      (r) =>
        `${r.username}  ${r.email}  ${r.is_admin ? 'admin' : 'user '}  created ${r.created_at}  ` +
        `two-factor ${r.two_factor ? 'on' : 'off'}`,
    );
    return { text: lines.length ? lines.join('\n') : 'no users', data: rows, exitCode: EXIT.ok };
  },
});

const userResetPassword = serviceCommand({
  name: 'user reset-password',
  description:
    "print a one-time link (one hour) where the user sets a new password; or set it at once with --password-stdin (either way the user's sessions end when the password changes)",
  arguments: [{ name: '<username>' }],
  options: [
    { flags: '--password-stdin', description: 'read the new password from standard input and set it now' },
  ],
  args: (username: string, o: { passwordStdin?: boolean }) => ({
    username,
    password: o.passwordStdin ? fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '') : undefined,
  }),
  async run(services, args) {
    try {
      if (args.password !== undefined) {
        await services.security.setPassword(args.username, args.password);
        return {
          text: `set a new password for ${args.username}; their sessions have ended`,
          data: { username: args.username, password_set: true },
          exitCode: EXIT.ok,
        };
      }
      const link = await services.security.passwordResetLink(args.username);
      // The link alone on stdout, like a token: scripts capture it.
      return {
        text: link.url,
        data: { username: args.username, url: link.url, expires_at: link.expiresAt.toISOString() },
        exitCode: EXIT.ok,
        notes: [
          `one-time link for ${args.username}, valid until ${link.expiresAt.toISOString()}; ` +
            'an earlier unused link of theirs no longer works',
        ],
      };
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found')
        throw new UsageError(`no user named "${args.username}"`);
      throw err;
    }
  },
});

const userDisableTwoFactor = serviceCommand({
  name: 'user disable-2fa',
  description: 'turn two-factor sign-in off for a user locked out of it (lost phone and recovery codes)',
  arguments: [{ name: '<username>' }],
  args: (username: string) => ({ username }),
  async run(services, args) {
    let wasOn: boolean;
    try {
      wasOn = await services.security.disableTwoFactorOf(args.username);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found')
        throw new UsageError(`no user named "${args.username}"`);
      throw err;
    }
    return {
      text: wasOn
        ? `two-factor sign-in is off for ${args.username}; their password alone signs in now`
        : `two-factor sign-in was not on for ${args.username}`,
      data: { username: args.username, two_factor: false, was_on: wasOn },
      exitCode: EXIT.ok,
    };
  },
});

const orgCreate = serviceCommand({
  name: 'org create',
  description: 'create an organization with its first owner',
  arguments: [{ name: '<name>', description: 'letters, digits and -' }],
  options: [{ flags: '--owner <username>', required: true }],
  args: (name: string, o: { owner: string }) => ({ name, owner: o.owner }),
  async run(services, args) {
    const org = await services.accounts.createOrganization(args.name, args.owner);
    return {
      text: `created organization ${org.name}`,
      data: { id: org.id, name: org.name },
      exitCode: EXIT.ok,
    };
  },
});

const projectCreate = serviceCommand({
  name: 'project create',
  description: 'create a project, with its subscriptions',
  arguments: [
    { name: '<org>', description: 'the organization' },
    { name: '<name>', description: 'the project name' },
  ],
  options: [
    { flags: '--vendor <vendor>', description: 'subscribe to a vendor (repeatable)', repeatable: true },
    {
      flags: '--product <vendor:product>',
      description: 'subscribe to a product of a vendor (repeatable)',
      repeatable: true,
    },
  ],
  args: (org: string, name: string, o: { vendor: string[]; product: string[] }) => ({
    org,
    name,
    vendors: o.vendor,
    products: collectProducts(o.product),
  }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const { project, subscriptions } = await services.projects.create(
      org.id,
      { name: args.name },
      SYSTEM_ACTOR,
      {
        vendors: args.vendors,
        products: args.products,
      },
    );
    const n = project.subscriptions_count;
    return {
      text: `created project ${project.name} in ${org.name} with ${n} subscription${n === 1 ? '' : 's'}`,
      data: { id: project.id, name: project.name, organization: org.name, subscriptions },
      exitCode: EXIT.ok,
    };
  },
});

const migrateFromOpencve = serviceCommand({
  name: 'migrate-from-opencve',
  description:
    "copy an OpenCVE organization's projects, subscriptions, notifications (disabled: secrets are entered again), automations and tracker state, from its API v2",
  options: [
    { flags: '--url <base>', description: "OpenCVE's address (https://opencve.example.com)", required: true },
    { flags: '--token <token>', description: 'an organization token of OpenCVE', required: true },
    { flags: '--org <name>', description: 'the vulntrack organization to copy into', required: true },
    { flags: '--from-org <name>', description: "OpenCVE's organization (default: the token's)" },
    { flags: '--as <username>', description: 'a member of --org the audit log credits (default: system)' },
  ],
  args: (o: { url: string; token: string; org: string; fromOrg?: string; as?: string }) => ({
    url: o.url,
    token: o.token,
    org: o.org,
    fromOrg: o.fromOrg,
    as: o.as,
  }),
  async run(services, args, progress) {
    const org = await services.accounts.getOrganization(args.org).catch(() => undefined);
    const actor = org ? await actorFor(services, org, args.as) : SYSTEM_ACTOR;
    const r = await services.opencveMigration.migrate(
      { url: args.url, token: args.token, organization: args.org, fromOrganization: args.fromOrg, actor },
      progress,
    );
    const t = (x: { created: number; existing: number; failed: number }) =>
      `${x.created} created, ${x.existing} existing (skipped)${x.failed ? `, ${x.failed} not copied` : ''}`;
    const lines = [
      `from OpenCVE ${r.from.organization} (${r.from.url}) into ${r.to}:`,
      `  projects: ${t(r.projects)}`,
      `  subscriptions: ${r.subscriptions.added} added${r.subscriptions.unknown.length ? `, ${r.subscriptions.unknown.length} not in the catalog` : ''}`,
      `  notifications: ${t(r.notifications)}; created disabled: their secrets must be entered again`,
      `  automations: ${t(r.automations)}`,
      `  tracker: ${r.tracker.updated} moved, ${r.tracker.unchanged} already so` +
        (r.tracker.notInProject ? `, ${r.tracker.notInProject} not in the project here` : '') +
        (r.tracker.assigneesNotMembers
          ? `, ${r.tracker.assigneesNotMembers} assignees not members here`
          : ''),
    ];
    const failed = r.projects.failed + r.notifications.failed + r.automations.failed;
    return {
      text: lines.join('\n'),
      data: r,
      exitCode: failed ? EXIT.partial : EXIT.ok,
      notes: r.notes,
    };
  },
});

const tokenCreate = serviceCommand({
  name: 'token create',
  description: 'create a token; prints it once, alone on its line',
  options: [
    { flags: '--org <name>', required: true },
    { flags: '--name <name>', required: true },
    {
      flags: '--mode <mode>',
      description: 'read or write (default: write when a :write scope is given, else read)',
      choices: ['read', 'write'],
    },
    {
      flags: '--scope <scope>',
      description: `limit to a scope (repeatable): ${SCOPES.join(', ')}`,
      repeatable: true,
    },
    { flags: '--created-by <username>', description: 'the member the token is recorded as created by' },
  ],
  args: (o: { org: string; name: string; mode?: 'read' | 'write'; scope: string[]; createdBy?: string }) => {
    const unknown = o.scope.filter((s) => !isScope(s));
    if (unknown.length)
      throw new UsageError(
        `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; scopes are ${SCOPES.join(', ')}`,
      );
    const scopes = o.scope as Scope[];
    const mode = o.mode ?? (scopes.some((s) => s.endsWith(':write')) ? 'write' : 'read');
    return { org: o.org, name: o.name, mode, scopes, createdBy: o.createdBy };
  },
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.createdBy);
    const { mode, scopes } = args;
    const { token, record } = await services.tokens.create(org.id, { name: args.name, mode, scopes }, actor);
    // The token alone on stdout: scripts capture it with $(vulntrack token create …).
    return {
      text: token,
      data: {
        token,
        token_id: record.tokenId,
        name: record.name,
        mode: record.mode,
        scopes: record.scopes,
        organization: org.name,
      },
      exitCode: EXIT.ok,
      notes: [
        `created ${mode} token ${record.tokenId} "${record.name}" for ${org.name}; it is shown only now`,
      ],
    };
  },
});

const tokenList = serviceCommand({
  name: 'token list',
  description: 'list the tokens of an organization: who created each, its mode, scopes and last use',
  options: [{ flags: '--org <name>', required: true }],
  args: (o: { org: string }) => ({ org: o.org }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const tokens = await services.tokens.list(org.id);
    const rows = tokens.map((t) => ({
      token_id: t.tokenId,
      name: t.name,
      mode: t.mode,
      scopes: t.scopes,
      created_by: t.createdByName,
      created_at: t.createdAt.toISOString(),
      last_used_at: t.lastUsedAt?.toISOString() ?? null,
      revoked_at: t.revokedAt?.toISOString() ?? null,
    }));
    const lines = rows.map(
      (r) =>
        `${r.token_id}  ${r.revoked_at ? 'revoked' : 'live   '}  ${r.mode.padEnd(5)}  ${r.name}  ` +
        `scopes: ${r.scopes.length ? r.scopes.join(',') : 'all of its mode'}  created by ${r.created_by ?? '(cli)'} ${r.created_at}  ` +
        `last used ${r.last_used_at ?? 'never'}`,
    );
    return {
      text: lines.length ? lines.join('\n') : `no tokens in ${org.name}`,
      data: rows,
      exitCode: EXIT.ok,
    };
  },
});

const tokenRevoke = serviceCommand({
  name: 'token revoke',
  description: 'revoke a token (it stops working on its next request)',
  arguments: [{ name: '<token_id>' }],
  options: [{ flags: '--org <name>', required: true }],
  args: (tokenId: string, o: { org: string }) => ({ org: o.org, tokenId }),
  async run(services, { org: orgName, tokenId }) {
    const org = await services.accounts.getOrganization(orgName);
    try {
      await services.tokens.revoke(org.id, tokenId, SYSTEM_ACTOR);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found')
        throw new UsageError(`no live token ${tokenId} in ${org.name}`);
      throw err;
    }
    return {
      text: `revoked token ${tokenId}`,
      data: { token_id: tokenId, revoked: true },
      exitCode: EXIT.ok,
    };
  },
});

const memberAdd = serviceCommand({
  name: 'member add',
  description:
    'invite someone to an organization by email (emailed when SMTP_URL is set; else prints the link)',
  arguments: [{ name: '<org>', description: 'the organization' }, { name: '<email>' }],
  options: [
    {
      flags: '--role <role>',
      description: 'owner or member (default: member)',
      choices: ['owner', 'member'],
    },
    { flags: '--invited-by <username>', description: 'the member the invitation is recorded as made by' },
  ],
  args: (org: string, email: string, o: { role?: 'owner' | 'member'; invitedBy?: string }) => ({
    org,
    email,
    role: o.role ?? 'member',
    invitedBy: o.invitedBy,
  }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.invitedBy);
    const member = await services.members.invite(org.id, { email: args.email, role: args.role }, actor);
    const { invitation } = member;
    const head = `invited ${member.email} to ${org.name} as ${member.role}`;
    const text =
      invitation.email === 'sent'
        ? `${head}; the invitation was emailed`
        : `${head}; ${invitation.email === 'failed' ? `the email failed (${invitation.error})` : 'email is not configured (SMTP_URL)'}, so hand over this link (it works once, for 14 days):\n${invitation.link}`;
    return {
      text,
      data: {
        id: member.id,
        email: member.email,
        role: member.role,
        organization: org.name,
        emailed: invitation.email === 'sent',
        link: invitation.email === 'sent' ? null : invitation.link,
      },
      exitCode: EXIT.ok,
    };
  },
});

const memberList = serviceCommand({
  name: 'member list',
  description: 'list the members and pending invitations of an organization',
  arguments: [{ name: '<org>', description: 'the organization' }],
  args: (org: string) => ({ org }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const rows = (await allMembers(services, org.id)).map((m) => ({
      id: m.id,
      email: m.email,
      username: m.username,
      role: m.role,
      status: m.date_joined ? 'joined' : 'invited',
      date_invited: m.date_invited.toISOString(),
      date_joined: m.date_joined?.toISOString() ?? null,
    }));
    const lines = rows.map(
      (r) =>
        `${r.email}  ${r.role.padEnd(6)}  ${r.status.padEnd(7)}  ${r.username ?? '-'}  ` +
        (r.date_joined ? `joined ${r.date_joined}` : `invited ${r.date_invited}`),
    );
    return {
      text: lines.length ? lines.join('\n') : `no members in ${org.name}`,
      data: rows,
      exitCode: EXIT.ok,
    };
  },
});

const memberRemove = serviceCommand({
  name: 'member remove',
  description: 'remove a member, or withdraw an invitation (its link stops working)',
  arguments: [{ name: '<org>', description: 'the organization' }, { name: '<email>' }],
  args: (org: string, email: string) => ({ org, email }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const wanted = args.email.trim().toLowerCase();
    const member = (await allMembers(services, org.id)).find((m) => m.email.toLowerCase() === wanted);
    if (!member) throw new UsageError(`${args.email} is neither a member of ${org.name} nor invited to it`);
    await services.members.remove(org.id, member.id, SYSTEM_ACTOR);
    const what = member.date_joined ? 'removed' : 'withdrew the invitation of';
    return {
      text: `${what} ${member.email} ${member.date_joined ? 'from' : 'to'} ${org.name}`,
      data: { id: member.id, email: member.email, removed: true },
      exitCode: EXIT.ok,
    };
  },
});

/** Every membership of the organization, page by page. */
async function allMembers(services: Services, organizationId: string) {
  const all = [];
  for (let page = 1; ; page++) {
    const { count, items } = await services.members.list(organizationId, { page, pageSize: 100 });
    all.push(...items);
    if (all.length >= count || items.length === 0) return all;
  }
}

const tagSet = serviceCommand({
  name: 'tag set',
  description: "set a user's tags on a CVE, replacing the ones it had (no tags: untag it)",
  arguments: [
    { name: '<cve_id>' },
    { name: '[tags...]', description: 'letters, digits, _ . - (at most 64 characters each)' },
  ],
  options: [{ flags: '--user <username>', required: true }],
  args: (cveId: string, tags: string[], o: { user: string }) => ({ user: o.user, cveId, tags }),
  async run(services, args) {
    const r = await services.tags.setForUsername(args.user, args.cveId, args.tags);
    return {
      text: `${r.cve_id}: ${r.tags.length ? r.tags.join(' ') : 'no tags'}`,
      data: r,
      exitCode: EXIT.ok,
    };
  },
});

const tagList = serviceCommand({
  name: 'tag list',
  description: "list a user's tagged CVEs with their tags",
  arguments: [{ name: '[cve_id]', description: 'only this CVE' }],
  options: [{ flags: '--user <username>', required: true }],
  args: (cveId: string | undefined, o: { user: string }) => ({ user: o.user, cveId }),
  async run(services, args) {
    const tagged = await services.tags.listForUsername(args.user, args.cveId);
    return {
      text: tagged.length
        ? tagged.map((t) => `${t.cve_id}: ${t.tags.join(' ')}`).join('\n')
        : 'no tagged CVEs',
      data: tagged,
      exitCode: EXIT.ok,
    };
  },
});

/** The service commands, in the order `vulntrack --help` lists them (among the local ones: main.ts). */
export const SERVICE_COMMANDS = {
  jobsStatus,
  jobsRetry,
  import: importCommand,
  sync,
  userCreate,
  userList,
  userResetPassword,
  userDisableTwoFactor,
  orgCreate,
  projectCreate,
  migrateFromOpencve,
  tokenCreate,
  tokenList,
  tokenRevoke,
  memberAdd,
  memberList,
  memberRemove,
  tagSet,
  tagList,
  ...VENDOR_COMMANDS,
} satisfies Record<string, ServiceCommand>;

/**
 * Each service command by its name on the control socket (`token.create`), its arguments as they
 * arrive there (the JSON of what its `args` returned in the CLI).
 */
export const serviceCommands: Record<
  string,
  (
    services: Services,
    args: Record<string, unknown>,
    progress: (line: string) => void,
    signal?: AbortSignal,
  ) => Promise<CommandResult>
> = Object.fromEntries(
  Object.values(SERVICE_COMMANDS).map((c: ServiceCommand) => [
    commandKey(c),
    (
      services: Services,
      args: Record<string, unknown>,
      progress: (line: string) => void,
      signal?: AbortSignal,
    ) => c.run(services, args as never, progress, signal),
  ]),
);

/** Absolute paths for import targets, so a server with another working directory finds them. */
export const absoluteTargets = (targets: string[]) =>
  targets.map((t) => (/^https?:\/\//i.test(t) ? t : path.resolve(t)));
