/**
 * CLI commands that work on the services. Each runs in this process, or (while `serve` holds the
 * embedded data dir) inside the running server, handed over the control socket: the same code either
 * way, with a serializable result.
 */
import path from 'node:path';
import type { Services } from '../main.ts';
import type { ImportProgress, ImportReport } from '../services/import.service.ts';
import { sources } from '../sources/index.ts';
import { isSourceName, SOURCE_NAMES } from '../sources/source.ts';
import { AppError } from '../domain/errors.ts';
import { SYSTEM_ACTOR, type Actor } from '../domain/actor.ts';
import { isScope, SCOPES } from '../domain/scopes.ts';
import type { JobsOverview, JobSummary } from '../services/job.service.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';
import type { SyncReport } from '../services/sync.service.ts';

export interface CommandResult {
  text: string;
  data: unknown;
  exitCode: number;
  /** Lines for stderr (skipped records and the like). */
  notes?: string[];
}

export type ServiceCommand = (
  services: Services,
  args: Record<string, unknown>,
  progress: (line: string) => void,
) => Promise<CommandResult>;

function progressLine(p: ImportProgress): string {
  const rate = p.elapsedMs ? Math.round((p.records / p.elapsedMs) * 1000) : 0;
  const saved = p.counts.imported + p.counts.updated + p.counts.unchanged + p.counts.pending;
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

const str = (args: Record<string, unknown>, key: string) =>
  typeof args[key] === 'string' ? (args[key] as string) : undefined;

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

export const serviceCommands: Record<string, ServiceCommand> = {
  /** One sync round of each named source (default: SYNC_SOURCES), one after the other; a failure does not stop the rest. */
  async sync(services, args, progress) {
    const named = Array.isArray(args.sources) ? (args.sources as string[]) : [];
    const unknown = named.filter((s) => !(SYNC_SOURCE_NAMES as readonly string[]).includes(s));
    if (unknown.length)
      throw new UsageError(`unknown source "${unknown[0]}"; use one of ${SYNC_SOURCE_NAMES.join(', ')}`);
    const list = named.length ? (named as SyncSourceName[]) : services.config.sync.sources;
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

  async import(services, args, progress) {
    const source = str(args, 'source') ?? '';
    if (!isSourceName(source))
      throw new UsageError(`unknown source "${source}"; use one of ${SOURCE_NAMES.join(', ')}`);
    const targets = Array.isArray(args.targets) ? (args.targets as string[]) : [];
    const report = await services.imports.importInputs(sources[source], targets, {
      onProgress: (p) => progress(progressLine(p)),
    });
    // A problem without a position is about the input as a whole (KEV entries kept), not a record.
    const notes = report.problems
      .slice(0, 20)
      .map((p) => (p.position ? `skipped ${p.position}${p.id ? ` (${p.id})` : ''}: ${p.reason}` : p.reason));
    if (report.counts.skipped > 20)
      notes.push(`… and ${formatNumber(report.counts.skipped - 20)} more skipped records`);
    if (report.status === 'partial') {
      notes.push(
        `the import was partial: ${formatNumber(report.counts.skipped)} malformed records were skipped`,
      );
    }
    return {
      text: importSummary(report),
      data: report,
      exitCode: report.status === 'partial' ? EXIT.partial : EXIT.ok,
      notes,
    };
  },

  async 'jobs.status'(services) {
    const overview = await services.jobs.overview();
    return { text: jobsText(overview), data: overview, exitCode: EXIT.ok };
  },

  async 'jobs.retry'(services, args) {
    const id = Number(args.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`"${String(args.id)}" is not a job id`);
    if (!(await services.jobs.retry(id))) throw new UsageError(`no dead or failed job #${id}`);
    return { text: `job #${id} queued again`, data: { id, status: 'pending' }, exitCode: EXIT.ok };
  },

  async 'tag.set'(services, args) {
    const tags = Array.isArray(args.tags) ? (args.tags as string[]) : [];
    const r = await services.tags.setForUsername(str(args, 'user') ?? '', str(args, 'cveId') ?? '', tags);
    return {
      text: `${r.cve_id}: ${r.tags.length ? r.tags.join(' ') : 'no tags'}`,
      data: r,
      exitCode: EXIT.ok,
    };
  },

  async 'tag.list'(services, args) {
    const tagged = await services.tags.listForUsername(str(args, 'user') ?? '', str(args, 'cveId'));
    return {
      text: tagged.length
        ? tagged.map((t) => `${t.cve_id}: ${t.tags.join(' ')}`).join('\n')
        : 'no tagged CVEs',
      data: tagged,
      exitCode: EXIT.ok,
    };
  },

  async 'user.create'(services, args) {
    const user = await services.accounts.createUser({
      username: str(args, 'username') ?? '',
      email: str(args, 'email') ?? '',
      password: str(args, 'password') ?? '',
      isAdmin: args.admin === true,
    });
    return {
      text: `created user ${user.username}${user.is_admin ? ' (admin)' : ''}`,
      data: { id: user.id, username: user.username, email: user.email, is_admin: user.is_admin },
      exitCode: EXIT.ok,
    };
  },

  async 'org.create'(services, args) {
    const org = await services.accounts.createOrganization(str(args, 'name') ?? '', str(args, 'owner') ?? '');
    return {
      text: `created organization ${org.name}`,
      data: { id: org.id, name: org.name },
      exitCode: EXIT.ok,
    };
  },

  async 'project.create'(services, args) {
    const org = await services.accounts.getOrganization(str(args, 'org') ?? '');
    const vendors = Array.isArray(args.vendors) ? (args.vendors as string[]) : [];
    const products = (args.products ?? {}) as Record<string, string[]>;
    const { project, subscriptions } = await services.projects.create(
      org.id,
      { name: str(args, 'name') ?? '' },
      SYSTEM_ACTOR,
      { vendors, products },
    );
    const n = project.subscriptions_count;
    return {
      text: `created project ${project.name} in ${org.name} with ${n} subscription${n === 1 ? '' : 's'}`,
      data: { id: project.id, name: project.name, organization: org.name, subscriptions },
      exitCode: EXIT.ok,
    };
  },

  async 'token.create'(services, args) {
    const org = await services.accounts.getOrganization(str(args, 'org') ?? '');
    const scopes = Array.isArray(args.scopes) ? (args.scopes as string[]) : [];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length)
      throw new UsageError(
        `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; scopes are ${SCOPES.join(', ')}`,
      );
    const mode = str(args, 'mode') ?? (scopes.some((s) => s.endsWith(':write')) ? 'write' : 'read');
    if (mode !== 'read' && mode !== 'write') throw new UsageError('--mode must be read or write');
    const actor = await actorFor(services, org, str(args, 'createdBy'));
    const { token, record } = await services.tokens.create(
      org.id,
      { name: str(args, 'name') ?? '', mode, scopes },
      actor,
    );
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

  async 'token.list'(services, args) {
    const org = await services.accounts.getOrganization(str(args, 'org') ?? '');
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

  async 'token.revoke'(services, args) {
    const org = await services.accounts.getOrganization(str(args, 'org') ?? '');
    const tokenId = str(args, 'tokenId') ?? '';
    try {
      await services.tokens.revoke(org.id, tokenId, await actorFor(services, org, str(args, 'revokedBy')));
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
};

/** Absolute paths for import targets, so a server with another working directory finds them. */
export const absoluteTargets = (targets: string[]) =>
  targets.map((t) => (/^https?:\/\//i.test(t) ? t : path.resolve(t)));
