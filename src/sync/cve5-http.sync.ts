/**
 * cve5 over HTTP from the CVE Program's release archives (when CVE5_GIT_DIR is unset). Layout under
 * CVE5_BASE_URL (the cvelistV5 GitHub releases, or a mirror laid out the same way):
 *
 *   cve_<D>_0000Z/<D>_all_CVEs_at_midnight.zip.zip   baseline: a zip holding `cves.zip`, every record at 00:00Z
 *   cve_<D>_<HH>00Z/<D>_delta_CVEs_at_<HH>00Z.zip     hourly delta: the records changed in the hour before
 *
 * First sync (or a cursor older than MAX_DELTA_GAP_HOURS): the newest baseline (today's, else
 * yesterday's), then every hourly delta after it up to now, in order; the cursor `{hour}` is the last
 * delta imported. A delta not published yet (404 for the last two hours) ends the round; an older one
 * that is missing is skipped and the next day's baseline is imported to make up for it (`gapSince`).
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { downloadFile, extractZipEntry, type RetryPolicy } from './http.ts';
import {
  OutcomeBuilder,
  SyncError,
  type SourceSync,
  type SyncContext,
  type SyncOutcome,
} from './sync-source.ts';

const HOUR = 3600 * 1000;
/** Beyond this many hours behind, one baseline is cheaper (and surer) than every delta. */
const MAX_DELTA_GAP_HOURS = 48;
/** Deltas of the latest hours may not be published yet. */
const PUBLICATION_LAG_HOURS = 2;

export interface Cve5HttpSyncOptions {
  baseUrl: string;
  policy: RetryPolicy;
  now?: () => Date;
}

interface Cve5HttpCursor {
  /** The last hour (ISO, `YYYY-MM-DDTHH:00:00.000Z`) whose delta (or baseline) was imported. */
  hour?: string;
  /** A delta after this hour was missing: the next baseline is imported to make up for it. */
  gapSince?: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const hh = (d: Date) => d.toISOString().slice(11, 13);
const floorHour = (d: Date) => new Date(Math.floor(d.getTime() / HOUR) * HOUR);

export function baselineUrl(base: string, date: Date): string {
  return `${base}/cve_${day(date)}_0000Z/${day(date)}_all_CVEs_at_midnight.zip.zip`;
}

export function deltaUrl(base: string, hour: Date): string {
  return `${base}/cve_${day(hour)}_${hh(hour)}00Z/${day(hour)}_delta_CVEs_at_${hh(hour)}00Z.zip`;
}

export class Cve5HttpSync implements SourceSync {
  constructor(private readonly options: Cve5HttpSyncOptions) {}

  async run(context: SyncContext): Promise<SyncOutcome> {
    const now = (this.options.now ?? (() => new Date()))();
    const currentHour = floorHour(now);
    const outcome = new OutcomeBuilder(context.cursor);
    let cursor = { ...(context.cursor as Cve5HttpCursor) };
    const save = async (next: Cve5HttpCursor) => {
      cursor = next;
      await context.saveCursor({ ...next });
      outcome.cursor({ ...next });
    };

    const last = cursor.hour ? new Date(cursor.hour) : undefined;
    const tooFar = !last || currentHour.getTime() - last.getTime() > MAX_DELTA_GAP_HOURS * HOUR;
    const gapMadeUp = cursor.gapSince !== undefined && day(new Date(cursor.gapSince)) < day(now);
    if (tooFar || gapMadeUp) {
      const midnight = await this.importBaseline(now, context, outcome);
      await save({ hour: midnight.toISOString() });
    }

    let hour = new Date(new Date(cursor.hour!).getTime() + HOUR);
    let deltas = 0;
    while (hour <= currentHour) {
      const download = await downloadFile(deltaUrl(this.options.baseUrl, hour), this.options.policy).catch(
        (err: Error) => {
          if (/HTTP 404/.test(err.message)) return null;
          throw err;
        },
      );
      if (download === null) {
        if (currentHour.getTime() - hour.getTime() < PUBLICATION_LAG_HOURS * HOUR) {
          outcome.note(`delta ${hour.toISOString()} not published yet`);
          break;
        }
        outcome.note(`delta ${hour.toISOString()} missing upstream: the next baseline makes up for it`);
        await save({ hour: hour.toISOString(), gapSince: cursor.gapSince ?? hour.toISOString() });
      } else if (download) {
        try {
          outcome.add(await context.importInputs([download.file]));
        } finally {
          await download.dispose();
        }
        deltas++;
        await save({ hour: hour.toISOString(), ...(cursor.gapSince ? { gapSince: cursor.gapSince } : {}) });
      }
      hour = new Date(hour.getTime() + HOUR);
    }
    outcome.note(`${deltas} hourly delta${deltas === 1 ? '' : 's'}`);
    return outcome.get();
  }

  /** Imports the newest baseline (today's, else yesterday's); returns its midnight. */
  private async importBaseline(now: Date, context: SyncContext, outcome: OutcomeBuilder): Promise<Date> {
    const today = new Date(`${day(now)}T00:00:00.000Z`);
    for (const midnight of [today, new Date(today.getTime() - 24 * HOUR)]) {
      const url = baselineUrl(this.options.baseUrl, midnight);
      const download = await downloadFile(url, this.options.policy).catch((err: Error) => {
        if (/HTTP 404/.test(err.message)) return null;
        throw err;
      });
      if (!download) continue;
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-cve5-baseline-'));
      try {
        // The baseline is a zip holding a zip: unpack the inner one, which the importer reads.
        const inner = await extractZipEntry(download.file, /\.zip$/i, dir);
        if (!inner) throw new SyncError(`${url}: no cves.zip inside the baseline archive`);
        await download.dispose();
        context.progress(`cve5: importing the baseline of ${day(midnight)}`);
        outcome.add(await context.importInputs([inner]));
        outcome.note(`baseline of ${day(midnight)}`);
        return midnight;
      } finally {
        await download.dispose();
        await fsp.rm(dir, { recursive: true, force: true });
      }
    }
    throw new SyncError(
      `no baseline archive for ${day(today)} or the day before under ${this.options.baseUrl}`,
    );
  }
}
