/** `vulntrack import <source> <paths...>`: upstream files, folders, archives or URLs into the catalog. */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportProgress, ImportReport } from '../domain/import-report.ts';
import { isSourceName, SOURCE_NAMES, type SourceName } from '../sources/source.ts';
import { serviceCommand } from './command.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';

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

/** Absolute paths for import targets, so a server with another working directory finds them. */
const absoluteTargets = (targets: string[]) =>
  targets.map((t) => (/^https?:\/\//i.test(t) ? t : path.resolve(t)));

export const importCommand = serviceCommand({
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
