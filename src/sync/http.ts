/**
 * Upstream HTTP for sync: requests retried with exponential backoff on network errors, 403, 429 and
 * 5xx (bounded), a sliding-window rate limiter, and downloads to a temporary file that are checked
 * for completeness before anything is imported.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { SyncError } from './sync-source.ts';

export interface RetryPolicy {
  /** Attempts in all (1 = no retry). */
  attempts: number;
  /** Delay before the first retry; doubled each time, with ±20 % jitter, capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs?: number;
  /** Extra wait after a 403/429 (NVD's answer to a rate-limit overrun): at least one rate window. */
  rateLimitedDelayMs?: number;
  /** Called before each retry, for progress and tests. */
  onRetry?: (info: { url: string; attempt: number; reason: string; delayMs: number }) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Statuses worth another try: rate limits (403 is NVD's) and server errors. */
const retryable = (status: number) => status === 403 || status === 429 || status >= 500;

/**
 * At most `limit` requests within any `windowMs`, as the upstream counts them: by arrival. A request
 * holds its slot from its start until its response arrives (`release`), and the window is measured
 * from then: the client cannot know when a request reached the server, only that it did before the
 * response came back, so a delayed request never lets the next ones land too close behind it.
 * Serializes callers, so concurrent use stays within limits.
 */
export class SlidingWindowRateLimiter {
  /** Per slot: when its response arrived, or undefined while the request is in flight. */
  private readonly slots: { doneAt: number | undefined }[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Waits for a slot; call the returned function when the response has arrived (or failed). */
  acquire(): Promise<() => void> {
    const turn = this.queue.then(async () => {
      for (;;) {
        const now = Date.now();
        while (
          this.slots.length &&
          this.slots[0]!.doneAt !== undefined &&
          now - this.slots[0]!.doneAt >= this.windowMs
        ) {
          this.slots.shift();
        }
        if (this.slots.length < this.limit) {
          const slot: { doneAt: number | undefined } = { doneAt: undefined };
          this.slots.push(slot);
          return () => {
            slot.doneAt ??= Date.now();
          };
        }
        const oldest = this.slots[0]!.doneAt;
        await sleep(oldest === undefined ? 20 : oldest + this.windowMs - now + 1);
      }
    });
    this.queue = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }
}

function describeError(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

/**
 * fetch with retries. Resolves with a response whose status is not retryable (the caller checks
 * 2xx/304/404); throws SyncError when every attempt failed. `read` consumes the body inside the retry
 * loop, so a connection cut half-way through a body is retried too.
 */
export async function fetchWithRetry<T>(
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  read: (response: Response) => Promise<T>,
  limiter?: SlidingWindowRateLimiter,
): Promise<T> {
  let lastReason = '';
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    let delayMs = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs ?? 300_000);
    delayMs = Math.round(delayMs * (0.8 + Math.random() * 0.4));
    try {
      const release = await limiter?.acquire();
      let response: Response;
      try {
        response = await fetch(url, { ...init, redirect: 'follow' });
      } finally {
        release?.();
      }
      if (!retryable(response.status)) return await read(response);
      await response.body?.cancel().catch(() => {});
      lastReason = `HTTP ${response.status}`;
      const retryAfter = Number(response.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) delayMs = Math.max(delayMs, retryAfter * 1000);
      if (response.status === 403 || response.status === 429)
        delayMs = Math.max(delayMs, policy.rateLimitedDelayMs ?? 0);
    } catch (err) {
      if (err instanceof SyncError && !(err as SyncError & { retry?: boolean }).retry) throw err;
      lastReason = describeError(err);
    }
    if (attempt < policy.attempts) {
      policy.onRetry?.({ url, attempt, reason: lastReason, delayMs });
      await sleep(delayMs);
    }
  }
  throw new SyncError(`${redact(url)}: ${lastReason} (after ${policy.attempts} attempts)`);
}

/** A body that ended early (cut connection, truncated archive): worth another attempt. */
export function retryableError(message: string): SyncError {
  return Object.assign(new SyncError(message), { retry: true });
}

/** URLs without credentials, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const key of [...u.searchParams.keys()])
      if (/key|token/i.test(key)) u.searchParams.set(key, 'redacted');
    return u.toString();
  } catch {
    return url;
  }
}

export interface Download {
  /** The downloaded file (in its own temp dir; `dispose()` removes both). */
  file: string;
  sha256: string;
  etag: string | null;
  lastModified: string | null;
  dispose(): Promise<void>;
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

/**
 * Downloads `url` to a temp file named like the URL's last path segment and checks it is complete
 * (Content-Length, gzip stream end, zip central directory). Returns undefined for a 304 (the
 * upstream says it is unchanged since `validators`). Throws SyncError for what cannot be fetched.
 */
export async function downloadFile(
  url: string,
  policy: RetryPolicy,
  validators: Validators = {},
): Promise<Download | undefined> {
  const headers: Record<string, string> = {};
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-sync-'));
  const dispose = () => fsp.rm(dir, { recursive: true, force: true });
  try {
    const result = await fetchWithRetry(url, { headers }, policy, async (response) => {
      if (response.status === 304) return undefined;
      if (!response.ok || !response.body) throw new SyncError(`${redact(url)}: HTTP ${response.status}`);
      const file = path.join(dir, path.basename(new URL(response.url || url).pathname) || 'download');
      const hash = createHash('sha256');
      let bytes = 0;
      try {
        await pipeline(
          Readable.fromWeb(response.body as WebReadableStream),
          new Transform({
            transform(chunk: Buffer, _enc, done) {
              hash.update(chunk);
              bytes += chunk.length;
              done(null, chunk);
            },
          }),
          fs.createWriteStream(file),
        );
      } catch (err) {
        throw retryableError(`${redact(url)}: download cut off (${describeError(err)})`);
      }
      const expected = Number(response.headers.get('content-length') ?? NaN);
      if (!response.headers.get('content-encoding') && Number.isFinite(expected) && bytes !== expected)
        throw retryableError(`${redact(url)}: download cut off (${bytes} of ${expected} bytes)`);
      await checkArchive(file, url);
      return {
        file,
        sha256: hash.digest('hex'),
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
        dispose,
      };
    });
    if (!result) await dispose();
    return result;
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** A .gz must decompress to its end and a .zip must have a readable central directory and entries. */
async function checkArchive(file: string, url: string): Promise<void> {
  if (/\.gz$/i.test(file)) {
    try {
      await pipeline(
        fs.createReadStream(file),
        zlib.createGunzip(),
        new Transform({ transform: (_c, _e, done) => done() }),
      );
    } catch (err) {
      throw retryableError(`${redact(url)}: truncated or corrupt gzip (${describeError(err)})`);
    }
  } else if (/\.zip$/i.test(file)) {
    try {
      await zipEntryNames(file);
    } catch (err) {
      throw retryableError(`${redact(url)}: truncated or corrupt zip (${describeError(err)})`);
    }
  }
}

function zipEntryNames(file: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('unreadable zip'));
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    }),
  );
}

/** Extracts the entry of `zipFile` whose base name matches `pattern` into `dir`; returns its path or undefined. */
export function extractZipEntry(zipFile: string, pattern: RegExp, dir: string): Promise<string | undefined> {
  return new Promise((resolve, reject) =>
    yauzl.open(zipFile, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('unreadable zip'));
      let found = false;
      zip.on('entry', (entry: yauzl.Entry) => {
        if (found || !pattern.test(path.basename(entry.fileName))) return zip.readEntry();
        found = true;
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('unreadable zip entry'));
          const out = path.join(dir, path.basename(entry.fileName));
          pipeline(stream, fs.createWriteStream(out)).then(() => {
            zip.close();
            resolve(out);
          }, reject);
        });
      });
      zip.on('end', () => {
        if (!found) resolve(undefined);
      });
      zip.on('error', reject);
      zip.readEntry();
    }),
  );
}
