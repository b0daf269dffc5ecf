/** `vulntrack sync [sources...]`: one sync round from the configured upstreams, now. */
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '../config.ts';
import type { SyncReport } from '../services/sync.service.ts';
import { serviceCommand } from './command.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';

function syncSummary(r: SyncReport): string {
  const c = r.counts;
  const counts = `${formatNumber(c.imported)} imported, ${formatNumber(c.updated)} updated, ${formatNumber(c.unchanged)} unchanged, ${formatNumber(c.skipped)} skipped`;
  const notes = r.notes.length ? `; ${r.notes.join('; ')}` : '';
  return `${r.source}: ${counts}; ${formatNumber(r.changes)} changes recorded (${(r.durationMs / 1000).toFixed(1)} s)${notes}`;
}

/** One sync round of each named source (default: SYNC_SOURCES), one after the other; a failure does not stop the rest. */
export const sync = serviceCommand({
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
