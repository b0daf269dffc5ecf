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
 * Reads blobs (`<rev>:<path>`) in order through one `git cat-file --batch` process. Requests are
 * answered strictly in order, so callers await each read before the next one.
 */
export class BlobReader {
  private readonly child;
  private buffer = Buffer.alloc(0);
  private waiting: ((chunk: void) => void) | undefined;
  private failed: Error | undefined;

  constructor(dir: string) {
    this.child = spawn('git', ['-C', dir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    const fail = (err: Error) => {
      this.failed = err;
      this.waiting?.();
    };
    this.child.on('error', fail);
    this.child.on('close', () => fail(new SyncError('git cat-file ended early')));
  }

  /** The blob's content, or undefined when `<rev>:<path>` does not exist. */
  async read(spec: string): Promise<Buffer | undefined> {
    this.child.stdin.write(`${spec}\n`);
    const header = await this.take(() => {
      const i = this.buffer.indexOf(10);
      return i < 0 ? undefined : i + 1;
    });
    const line = header.toString('utf8').trim();
    if (line.endsWith(' missing')) return undefined;
    const size = Number(line.split(' ')[2]);
    if (!Number.isFinite(size)) throw new SyncError(`git cat-file: unexpected answer "${line}"`);
    const body = await this.take(() => (this.buffer.length >= size + 1 ? size + 1 : undefined));
    return body.subarray(0, size);
  }

  private async take(ready: () => number | undefined): Promise<Buffer> {
    for (;;) {
      const n = ready();
      if (n !== undefined) {
        const out = this.buffer.subarray(0, n);
        this.buffer = this.buffer.subarray(n);
        return out;
      }
      if (this.failed) throw this.failed;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }

  close(): void {
    this.child.removeAllListeners('close');
    this.child.stdin.end();
  }
}
