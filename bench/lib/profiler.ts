/**
 * CPU-profiles one piece of work in-process through the inspector, rather than `node --cpu-prof`
 * for the whole process: the profile then holds the measured work only, not tsx compiling modules,
 * migrations or the loader thread, and it is comparable from run to run.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** Runs `fn`; when `out` is set, writes the main thread's .cpuprofile of the run there. */
export async function profiled<T>(out: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!out) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 1 ms, as --cpu-prof: finer sampling costs more overhead than it buys at this scale.
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
  }
}
