/**
 * Load on one endpoint with autocannon (in this process): a warm-up run whose numbers are dropped,
 * then the measured run. Around the measured run, the CPU time of the server process, of the
 * database's backends (PostgreSQL on this machine) and of this process (autocannon itself) is read,
 * so the results can say where the two cores went.
 */
import autocannon from 'autocannon';
import { machineCpuMs } from '../lib/pg-server-cpu.ts';

export interface LoadOptions {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface CpuProbes {
  server: () => number | undefined;
  /** The PostgreSQL backends serving the benchmark's database; absent for embedded. */
  database?: (() => number | undefined) | undefined;
}

export interface LoadResult {
  /** autocannon's mean of per-second request counts. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /**
   * CPU ms per answered request: server process, database backends, load generator, and the rest of
   * the machine's busy time (PostgreSQL parallel workers, other processes).
   */
  cpuPerRequest: {
    server?: number | undefined;
    database?: number | undefined;
    loadGenerator: number;
    other?: number | undefined;
  };
  /** Share of the machine's cores busy during the run, whoever used them (1 = every core). */
  cpuShare: number;
  /** process.hrtime of the measured run, in µs: the window of a server CPU profile to keep. */
  windowUs: [number, number];
  /** False when the warm-up's requests were still queued in the server as the measured run began. */
  idleBefore: boolean;
  /** False when the server was still busy DRAIN_MS after the run (requests left behind still queued). */
  idleAfter: boolean;
}

export const DRAIN_MS = 60_000;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const diff = (after: number | undefined, before: number | undefined) =>
  after === undefined || before === undefined ? undefined : after - before;

/**
 * When autocannon stops, the requests it had in flight still run in the server (their sockets are
 * closed, not their handlers) and the database pool's queue still holds them. `probe` sends one cheap
 * authenticated request, which waits in that queue: once it answers within 50 ms the server is idle
 * again and the next run starts clean. False when it is still busy after DRAIN_MS.
 */
async function drain(probe: () => Promise<void>): Promise<boolean> {
  const deadline = Date.now() + DRAIN_MS;
  await new Promise((r) => setTimeout(r, 250));
  while (Date.now() < deadline) {
    const started = performance.now();
    await probe();
    if (performance.now() - started < 50) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export async function runLoad(
  url: string,
  headers: Record<string, string>,
  options: LoadOptions,
  probes: CpuProbes,
  cores: number,
  probe: () => Promise<void>,
): Promise<LoadResult> {
  const base = { url, headers, connections: options.connections };
  let idleBefore = true;
  if (options.warmupSeconds > 0) {
    await autocannon({ ...base, duration: options.warmupSeconds });
    idleBefore = await drain(probe);
  }
  const server0 = probes.server();
  const db0 = probes.database?.();
  const self0 = process.cpuUsage();
  const machine0 = machineCpuMs();
  const start = nowUs();
  const r = await autocannon({ ...base, duration: options.seconds });
  const end = nowUs();
  const self = process.cpuUsage(self0);
  const machineMs = diff(machineCpuMs(), machine0);
  const serverMs = diff(probes.server(), server0);
  const dbMs = diff(probes.database?.(), db0);
  const selfMs = (self.user + self.system) / 1000;
  const answered = Math.max(1, r['2xx']);
  const wallMs = (end - start) / 1000;
  const idleAfter = await drain(probe);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    maxMs: r.latency.max,
    requests: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    seconds: r.duration,
    cpuPerRequest: {
      server: serverMs === undefined ? undefined : serverMs / answered,
      database: dbMs === undefined ? undefined : dbMs / answered,
      loadGenerator: selfMs / answered,
      other:
        machineMs === undefined
          ? undefined
          : Math.max(0, machineMs - (serverMs ?? 0) - (dbMs ?? 0) - selfMs) / answered,
    },
    cpuShare: (machineMs ?? (serverMs ?? 0) + (dbMs ?? 0) + selfMs) / (wallMs * cores),
    windowUs: [start, end],
    idleBefore,
    idleAfter,
  };
}
