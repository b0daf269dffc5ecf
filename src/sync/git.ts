/** The git command line, without a shell: run a command, or read many blobs through one `cat-file --batch`. */
import { execFile, spawn } from 'node:child_process';
import { SyncError } from './sync-source.ts';

export function git(dir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'git',
      ['-C', dir, ...args],
      { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
      (err, stdout, stderr) =>
        err
          ? reject(
              new SyncError(`git ${args[0]} in ${dir}: ${(stderr || err.message).trim().split('\n').at(-1)}`),
            )
          : resolve(stdout),
    ),
  );
}

/**
 * Reads blobs (`<rev>:<path>`) through one `git cat-file --batch` process. Reads may be issued
 * without waiting for the earlier ones (git answers strictly in order), so that git reads ahead
 * while the caller works: see `readAhead`.
 */
export class BlobReader {
  private readonly child;
  /** Output not parsed yet, in the chunks it came in (joined only where an answer spans several). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The reads waiting for their answer, oldest first. */
  private readonly waiting: { resolve(blob: Buffer | undefined): void; reject(err: Error): void }[] = [];
  private failed: Error | undefined;

  constructor(dir: string) {
    this.child = spawn('git', ['-C', dir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.answer();
    });
    this.child.on('error', (err) => this.fail(err));
    this.child.stdin.on('error', (err) => this.fail(err));
    this.child.on('close', () => this.fail(new SyncError('git cat-file ended early')));
  }

  /** The blob's content, or undefined when `<rev>:<path>` does not exist. */
  read(spec: string): Promise<Buffer | undefined> {
    return this.request([spec])[0]!;
  }

  /**
   * Each spec's blob in order (undefined when missing), with up to `window` reads in flight: git
   * reads the next blobs on the other core while the caller uses this one.
   */
  async *readAhead(
    specs: readonly string[],
    window = 64,
  ): AsyncGenerator<{ spec: string; blob: Buffer | undefined }> {
    const ahead: Promise<Buffer | undefined>[] = [];
    let next = 0;
    for (const spec of specs) {
      if (ahead.length < window / 2 && next < specs.length) {
        // Refilled by halves, in one write to git.
        const more = specs.slice(next, next + window - ahead.length);
        next += more.length;
        for (const read of this.request(more)) {
          // Awaited below in turn; a failure must not go unhandled meanwhile.
          read.catch(() => {});
          ahead.push(read);
        }
      }
      yield { spec, blob: await ahead.shift()! };
    }
  }

  /** Asks git for these blobs (one write); the answers settle in order. */
  private request(specs: readonly string[]): Promise<Buffer | undefined>[] {
    const reads = specs.map(
      () =>
        new Promise<Buffer | undefined>((resolve, reject) => {
          if (this.failed) reject(this.failed);
          else this.waiting.push({ resolve, reject });
        }),
    );
    if (!this.failed) this.child.stdin.write(specs.map((s) => `${s}\n`).join(''));
    return reads;
  }

  /** Settles the oldest waiting reads whose answers are complete. */
  private answer(): void {
    while (this.waiting.length && this.buffered) {
      const head = this.chunks[0]!;
      const eol = head.indexOf(10);
      if (eol < 0) {
        // A header cut between two chunks (rare: headers are short).
        if (this.chunks.length === 1) return;
        this.chunks.splice(0, 2, Buffer.concat([head, this.chunks[1]!]));
        continue;
      }
      const line = head.toString('latin1', 0, eol);
      if (line.endsWith(' missing')) {
        this.consume(eol + 1);
        this.waiting.shift()!.resolve(undefined);
        continue;
      }
      const size = Number(line.split(' ')[2]);
      if (!Number.isFinite(size)) {
        this.fail(new SyncError(`git cat-file: unexpected answer "${line}"`));
        return;
      }
      // The header, the content, then a newline.
      if (this.buffered < eol + 1 + size + 1) return;
      this.consume(eol + 1);
      const blob = this.take(size);
      this.consume(1);
      this.waiting.shift()!.resolve(blob);
    }
  }

  /** The next `n` buffered bytes: a view of the first chunk when it holds them all, else a copy. */
  private take(n: number): Buffer {
    const head = this.chunks[0]!;
    if (head.length >= n) {
      const out = head.subarray(0, n);
      this.consume(n);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const part = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, part);
      filled += part;
      this.consume(part);
    }
    return out;
  }

  /** Drops `n` bytes from the front; they are all in the first chunk. */
  private consume(n: number): void {
    const head = this.chunks[0]!;
    if (n === head.length) this.chunks.shift();
    else this.chunks[0] = head.subarray(n);
    this.buffered -= n;
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const w of this.waiting.splice(0)) w.reject(this.failed);
  }

  close(): void {
    this.child.removeAllListeners('close');
    this.child.stdin.end();
  }
}
