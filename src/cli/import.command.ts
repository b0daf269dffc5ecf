/** `vulntrack import <source> <path|url>…`: imports files, folders, archives or URLs into the catalog. */
import fs from 'node:fs';
import path from 'node:path';
import { getConfig } from '../config.ts';
import { lockHolder } from '../db/data-dir-lock.ts';
import { createServices } from '../main.ts';
import type { ImportProgress, ImportReport } from '../services/import.service.ts';
import { sources } from '../sources/index.ts';
import { isSourceName, SOURCE_NAMES } from '../sources/source.ts';
import { sendControl, socketPath } from './control-socket.ts';
import { EXIT, formatNumber, UsageError, type Output } from './output.ts';

function progressLine(p: ImportProgress): string {
  const rate = p.elapsedMs ? Math.round((p.records / p.elapsedMs) * 1000) : 0;
  return `${p.source}: ${formatNumber(p.records)} records read (${formatNumber(rate)}/s), ${formatNumber(p.counts.skipped)} skipped`;
}

function summary(r: ImportReport): string {
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

function reportProblems(r: ImportReport, out: Output): void {
  const shown = r.problems.slice(0, 20);
  for (const p of shown) out.progress(`skipped ${p.position}${p.id ? ` (${p.id})` : ''}: ${p.reason}`);
  if (r.counts.skipped > shown.length)
    out.progress(`… and ${formatNumber(r.counts.skipped - shown.length)} more skipped records`);
}

function finish(report: ImportReport, out: Output): number {
  if (!out.json) reportProblems(report, out);
  out.result(summary(report), report);
  if (report.status === 'partial') {
    out.error(
      `the import was partial: ${formatNumber(report.counts.skipped)} malformed records were skipped`,
    );
    return EXIT.partial;
  }
  return EXIT.ok;
}

export async function importCommand(sourceName: string, targets: string[], out: Output): Promise<number> {
  if (!isSourceName(sourceName)) {
    throw new UsageError(`unknown source "${sourceName}"; use one of ${SOURCE_NAMES.join(', ')}`);
  }
  const resolved = targets.map((t) => (/^https?:\/\//i.test(t) ? t : path.resolve(t)));
  for (const t of resolved) {
    if (!/^https?:\/\//i.test(t) && !fs.existsSync(t)) throw new UsageError(`${t}: no such file or folder`);
  }
  const config = getConfig();
  const onProgress = (p: ImportProgress) => out.progress(progressLine(p));

  // The embedded database is held by a running server: hand the import to it.
  if (
    !config.databaseUrl &&
    lockHolder(config.dataDir) !== undefined &&
    fs.existsSync(socketPath(config.dataDir))
  ) {
    out.progress(`handing the import to the running server (pid ${lockHolder(config.dataDir)})`);
    for await (const message of sendControl(config.dataDir, '/import', {
      source: sourceName,
      targets: resolved,
    })) {
      if (message.type === 'progress') onProgress(message.progress);
      else if (message.type === 'report') return finish(message.report, out);
      else throw new Error(message.message);
    }
    throw new Error('the running server closed the connection before the import finished');
  }

  const services = await createServices(config);
  try {
    const report = await services.imports.importInputs(sources[sourceName], resolved, { onProgress });
    return finish(report, out);
  } finally {
    await services.close();
  }
}
