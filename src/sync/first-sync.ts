/**
 * What a first sync costs, said once when `serve` starts. By default every upstream is kept current,
 * so a new install downloads the whole CVE Program baseline and loads all of NVD: the line says how
 * large and how long that is, and which settings turn it off or make it smaller. The figures are the
 * estimates of docs/sync.md ("First sync"), not measurements of the live upstreams.
 */
import type { SyncConfig, SyncSourceName } from '../config.ts';

/** The line to log when `pending` (configured sources never synced) is not empty, else undefined. */
export function firstSyncNotice(
  pending: readonly SyncSourceName[],
  sync: Pick<SyncConfig, 'cve5GitDir' | 'nvdApiKey' | 'nvdSyncStart'>,
): string | undefined {
  if (!pending.length) return undefined;
  const parts: string[] = [];
  const fullNvd = pending.includes('nvd') && !sync.nvdSyncStart;
  if (pending.includes('cve5')) {
    parts.push(
      sync.cve5GitDir
        ? 'cve5 imports every record of the clone in CVE5_GIT_DIR (about 300,000)'
        : 'cve5 downloads the whole CVE Program baseline (about 300,000 records, about 0.5 GB)',
    );
  }
  if (fullNvd) {
    const pace = sync.nvdApiKey
      ? ''
      : ', at least 15 minutes at the 5 requests per 30 s NVD allows without NVD_API_KEY';
    parts.push(`nvd loads every NVD record (about 150 requests of 2,000 records, about 2 GB of JSON${pace})`);
  } else if (pending.includes('nvd')) {
    parts.push(
      `nvd loads the records modified since NVD_SYNC_START (${sync.nvdSyncStart!.toISOString().slice(0, 10)})`,
    );
  }
  const small = pending.filter((s) => s === 'kev' || s === 'epss' || s === 'cwe');
  if (small.length) parts.push(`${small.join(', ')} download one file each (a few MB)`);
  const large = pending.includes('cve5') || fullNvd;
  return (
    `first sync of ${pending.join(', ')} at each one's next scheduled run (cve5 and nvd: within 15 minutes by default): ` +
    `${parts.join('; ')}.` +
    (large ? ' Expect about half an hour and 2-3 GB of database on a 2-core machine.' : '') +
    ' SYNC_SOURCES=none turns sync off; SYNC_SOURCES=kev,epss,cwe keeps only the small files; ' +
    'NVD_SYNC_START=<date> loads NVD from that date (docs/sync.md).'
  );
}
