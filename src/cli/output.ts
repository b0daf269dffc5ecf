/** How commands talk: results on stdout (text or --json), progress and errors on stderr. */

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Exit statuses (README.md), plus 3 for an import that completed but skipped malformed records, and
 * 130 (the shell's status for Ctrl-C) for an import cancelled by Ctrl-C or SIGTERM.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, cancelled: 130 } as const;

export interface Output {
  json: boolean;
  result(text: string, data: unknown): void;
  progress(text: string): void;
  error(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result: (text, data) => process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`),
    progress: (text) => process.stderr.write(`${text}\n`),
    error: (text) => process.stderr.write(`vulntrack: ${text}\n`),
  };
}

export const formatNumber = (n: number) => n.toLocaleString('en-US');
