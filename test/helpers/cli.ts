/** Runs the real `vulntrack` command line as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(projectRoot, 'bin/vulntrack.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [bin, ...args], {
    cwd: projectRoot,
    // No upstream sync from test servers unless a test asks for it.
    env: { ...process.env, LOG_LEVEL: 'info', SYNC_SOURCES: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves when the child's output (stdout or stderr) matches `pattern`. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${seen}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', () => {
      clearTimeout(timer);
      if (!pattern.test(seen)) reject(new Error(`process exited before ${pattern}; output:\n${seen}`));
    });
  });
}
