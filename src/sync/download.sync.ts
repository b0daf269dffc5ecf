/**
 * Sync of a source published as one file at a fixed URL (KEV JSON, EPSS CSV.gz, CWE CSV zip):
 * a conditional download (ETag / Last-Modified), skipped again when the content hash is the one
 * imported last time, then one import. The cursor is `{url, etag, lastModified, sha256}`.
 */
import { downloadFile, type RetryPolicy } from './http.ts';
import { OutcomeBuilder, type SourceSync, type SyncContext, type SyncOutcome } from './sync-source.ts';

interface DownloadCursor {
  url?: string;
  etag?: string;
  lastModified?: string;
  sha256?: string;
}

export class DownloadSync implements SourceSync {
  constructor(
    private readonly url: string,
    private readonly policy: RetryPolicy,
  ) {}

  async run(context: SyncContext): Promise<SyncOutcome> {
    const previous = context.cursor as DownloadCursor;
    const outcome = new OutcomeBuilder(context.cursor);
    // Validators of another URL (a mirror was configured since) say nothing about this one.
    const same = previous.url === this.url;
    const download = await downloadFile(
      this.url,
      this.policy,
      same ? { etag: previous.etag, lastModified: previous.lastModified } : {},
    );
    if (!download) {
      outcome.note('unchanged upstream (HTTP 304)');
      return outcome.get();
    }
    try {
      const cursor: DownloadCursor = {
        url: this.url,
        ...(download.etag ? { etag: download.etag } : {}),
        ...(download.lastModified ? { lastModified: download.lastModified } : {}),
        sha256: download.sha256,
      };
      if (same && previous.sha256 === download.sha256) {
        outcome.note('unchanged content since the last import');
      } else {
        context.progress(`importing ${download.file.split('/').pop()}`);
        outcome.add(await context.importInputs([download.file]));
      }
      await context.saveCursor({ ...cursor });
      outcome.cursor({ ...cursor });
      return outcome.get();
    } finally {
      await download.dispose();
    }
  }
}
