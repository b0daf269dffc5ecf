/**
 * `vulntrack worker` processes for benchmarks that measure the job runtime across processes (jobs,
 * notification deliveries).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from './paths.ts';

/** Starts `n` worker processes with `env` added, resolved once each has said it started. */
export function startWorkers(n: number, env: NodeJS.ProcessEnv): Promise<ChildProcess[]> {
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, [path.join(projectRoot, 'bin/vulntrack.js'), 'worker'], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  return Promise.all(
    children.map(
      (child) =>
        new Promise<ChildProcess>((resolve, reject) => {
          let seen = '';
          const onData = (d: Buffer) => {
            seen += d.toString();
            if (/job worker \S+ started/.test(seen)) resolve(child);
          };
          child.stdout!.on('data', onData);
          child.stderr!.on('data', onData);
          child.on('exit', (code) =>
            reject(new Error(`a worker exited (${code}) before starting:\n${seen}`)),
          );
        }),
    ),
  );
}

/** Stops the workers (SIGTERM) and waits for them to exit. */
export async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.on('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}
