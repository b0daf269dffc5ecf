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
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${spec}\n`);
    });
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
      if (ahead.length < window / 2) {
        // Refilled by halves, in one write to git.
        this.child.stdin.cork();
        while (next < specs.length && ahead.length < window) {
          const read = this.read(specs[next++]!);
          // Awaited below in turn; a failure must not go unhandled meanwhile.
          read.catch(() => {});
          ahead.push(read);
        }
        this.child.stdin.uncork();
      }
      yield { spec, blob: await ahead.shift()! };
    }
  }

  /** Settles the oldest waiting reads whose answers are complete. */
  private answer(): void {
    while (this.waiting.length && this.chunks.length) {
      const eol = this.chunks[0]!.indexOf(10);
      if (eol < 0) {
        if (this.chunks.length === 1) return;
        this.join(this.chunks[0]!.length + 1);
        continue;
      }
      const head = this.chunks[0]!;
      const line = head.toString('utf8', 0, eol);
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
      const total = eol + 1 + size + 1;
      if (this.buffered < total) return;
      if (head.length < total) this.join(total);
      const blob = this.chunks[0]!.subarray(eol + 1, eol + 1 + size);
      this.consume(total);
      this.waiting.shift()!.resolve(blob);
    }
  }

  /** Joins the first chunks until the first one holds at least `n` bytes (or everything buffered). */
  private join(n: number): void {
    let k = 1;
    let size = this.chunks[0]!.length;
    while (size < n && k < this.chunks.length) size += this.chunks[k++]!.length;
    this.chunks.splice(0, k, Buffer.concat(this.chunks.slice(0, k), size));
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
