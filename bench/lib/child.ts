/**
 * Runs one benchmark phase in a child Node process, so each phase's peak RSS is its own and a
 * phase cannot warm caches (JIT, module graph, heap) for the next one.
 */
import { fork, type ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();

/** Stops the phases still running (on Ctrl-C), so the caller can clean up behind them. */
export function killChildren(): void {
  for (const child of running) child.kill('SIGTERM');
}

export interface ChildOptions {
  /** Extra Node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
}

/**
 * Forks `script` (a .ts file run through tsx) with `spec` as its JSON argument and resolves with
 * the one message it sends back over IPC. Rejects when the child exits without answering.
 */
export function runChild<T>(script: string, spec: unknown, options: ChildOptions = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx', ...(options.nodeArgs ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    running.add(child);
    let answer: { ok: true; value: T } | { ok: false; error: string } | undefined;
    child.on('message', (message) => {
      answer = message as typeof answer;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      running.delete(child);
      if (answer?.ok) resolve(answer.value);
      else if (answer) reject(new Error(answer.error));
      else reject(new Error(`${script} exited with ${signal ?? `code ${code}`} before reporting`));
    });
  });
}

/**
 * The child side: runs `fn` with the spec from argv and sends back its result or error. The
 * process then ends by itself (no process.exit) so that `--cpu-prof` can write its profile.
 */
export async function serveChild<S, T>(fn: (spec: S) => Promise<T>): Promise<void> {
  const send = (message: unknown) =>
    new Promise<void>((resolve) => {
      if (!process.send) throw new Error('not started by runChild (no IPC channel)');
      process.send(message, () => resolve());
    });
  try {
    const spec = JSON.parse(process.argv[2] ?? 'null') as S;
    await send({ ok: true, value: await fn(spec) });
  } catch (err) {
    await send({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exitCode = 1;
  }
  process.disconnect();
}

/** Peak resident set size of this process so far, in MiB (`maxRSS` is in KiB). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}
