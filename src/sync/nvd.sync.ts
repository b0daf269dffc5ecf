/**
 * NVD CVE API 2.0 sync: `lastModStartDate`/`lastModEndDate` windows of at most 120 days from the
 * cursor to now, `resultsPerPage=2000` paged by `startIndex`, every request through the rate limiter,
 * retried with backoff. Each page is imported as it arrives; the cursor moves to a window's end once
 * all of its pages are imported. Without a cursor: NVD_SYNC_START, or a full load (no dates) whose
 * cursor is the time it started. See docs/sync.md.
 */
import { memoryFile, type InputFile } from '../sources/input.ts';
import {
  fetchWithRetry,
  redact,
  retryableError,
  type RetryPolicy,
  type SlidingWindowRateLimiter,
} from './http.ts';
import {
  OutcomeBuilder,
  SyncError,
  type SourceSync,
  type SyncContext,
  type SyncOutcome,
} from './sync-source.ts';

/** NVD's limit on one date range (the API answers 404 beyond it). */
export const NVD_MAX_WINDOW_MS = 120 * 24 * 3600 * 1000;
export const NVD_PAGE_SIZE = 2000;
/** Upstream records modified while a window is paged shift the pages: the window is fetched again. */
const MAX_WINDOW_RESTARTS = 3;

export interface NvdSyncOptions {
  apiUrl: string;
  apiKey: string | undefined;
  /** First window start without a cursor; undefined: a full load. */
  start: Date | undefined;
  limiter: SlidingWindowRateLimiter;
  policy: RetryPolicy;
  /** The clock (tests). */
  now?: () => Date;
}

interface NvdPage {
  resultsPerPage: number;
  startIndex: number;
  totalResults: number;
  vulnerabilities: unknown[];
}

/** NVD's date format: ISO 8601 with milliseconds and an explicit offset. */
export const nvdDate = (d: Date) => d.toISOString().replace('Z', '+00:00');

export class NvdSync implements SourceSync {
  constructor(private readonly options: NvdSyncOptions) {}

  async run(context: SyncContext): Promise<SyncOutcome> {
    const now = (this.options.now ?? (() => new Date()))();
    const outcome = new OutcomeBuilder(context.cursor);
    const cursorValue = context.cursor.lastModEnd;
    const first = typeof cursorValue === 'string' ? new Date(cursorValue) : this.options.start;
    if (!first) {
      outcome.note('no cursor: full load of every NVD record');
      await this.fetchWindow(undefined, context, outcome);
      await this.advance(now, context, outcome);
      return outcome.get();
    }
    let windows = 0;
    let start: Date = first;
    while (start < now) {
      const end: Date = new Date(Math.min(start.getTime() + NVD_MAX_WINDOW_MS, now.getTime()));
      await this.fetchWindow({ start, end }, context, outcome);
      await this.advance(end, context, outcome);
      windows++;
      start = end;
    }
    outcome.note(`${windows} window${windows === 1 ? '' : 's'} up to ${now.toISOString()}`);
    return outcome.get();
  }

  private async advance(end: Date, context: SyncContext, outcome: OutcomeBuilder) {
    const cursor = { lastModEnd: end.toISOString() };
    await context.saveCursor(cursor);
    outcome.cursor(cursor);
  }

  /** Fetches and imports every page of one window (or of everything, without a window). */
  private async fetchWindow(
    window: { start: Date; end: Date } | undefined,
    context: SyncContext,
    outcome: OutcomeBuilder,
  ): Promise<void> {
    for (let restart = 0; ; restart++) {
      let total: number | undefined;
      let startIndex = 0;
      let shifted = false;
      while (total === undefined || startIndex < total) {
        const { page, text } = await this.fetchPage(window, startIndex);
        if (total !== undefined && page.totalResults !== total) {
          shifted = true;
          break;
        }
        total = page.totalResults;
        if (page.vulnerabilities.length) {
          // Imported from memory (no temporary file): problems name the page, `nvd page 2000:…`.
          outcome.add(await context.importFiles(onePage(`nvd page ${startIndex}`, text)));
        } else if (startIndex < total) {
          throw new SyncError(`NVD returned an empty page at startIndex ${startIndex} of ${total}`);
        }
        startIndex += page.vulnerabilities.length;
        context.progress(
          `nvd: ${startIndex} of ${total}${window ? ` modified ${window.start.toISOString()} – ${window.end.toISOString()}` : ''}`,
        );
      }
      if (!shifted) return;
      if (restart >= MAX_WINDOW_RESTARTS)
        throw new SyncError('NVD results kept changing while the window was paged; will retry');
      context.progress('nvd: the result count changed while paging; fetching the window again');
    }
  }

  private async fetchPage(
    window: { start: Date; end: Date } | undefined,
    startIndex: number,
  ): Promise<{ page: NvdPage; text: string }> {
    const url = new URL(this.options.apiUrl);
    if (window) {
      url.searchParams.set('lastModStartDate', nvdDate(window.start));
      url.searchParams.set('lastModEndDate', nvdDate(window.end));
    }
    url.searchParams.set('resultsPerPage', String(NVD_PAGE_SIZE));
    url.searchParams.set('startIndex', String(startIndex));
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.apiKey = this.options.apiKey;
    const target = url.toString();
    return fetchWithRetry(
      target,
      { headers },
      this.options.policy,
      async (response) => {
        if (!response.ok) throw new SyncError(`${redact(target)}: HTTP ${response.status}`);
        let text: string;
        try {
          text = await response.text();
        } catch (err) {
          throw retryableError(`${redact(target)}: response cut off (${(err as Error).message})`);
        }
        let page: NvdPage;
        try {
          page = JSON.parse(text) as NvdPage;
        } catch {
          throw retryableError(`${redact(target)}: the response is not complete JSON`);
        }
        if (
          typeof page.totalResults !== 'number' ||
          typeof page.startIndex !== 'number' ||
          !Array.isArray(page.vulnerabilities)
        )
          throw new SyncError(`${redact(target)}: not an NVD API 2.0 response`);
        return { page, text };
      },
      this.options.limiter,
    );
  }
}

async function* onePage(name: string, text: string): AsyncGenerator<InputFile> {
  yield memoryFile(name, `${name}.json`, Buffer.from(text));
}
