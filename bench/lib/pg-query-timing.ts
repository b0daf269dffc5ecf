/**
 * Times every query sent to the database, grouped by statement: on PostgreSQL this splits a
 * profile's "idle" (the main thread waiting) into the statements it waited on; on PGlite, the WASM
 * time. Patches pg.Client.prototype or PGlite.prototype for the rest of the process: used by
 * profiling runs only, never for the headline numbers.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { backendCpuReader } from './pg-server-cpu.ts';

export interface QueryTiming {
  statement: string;
  calls: number;
  /** Call to settled promise: serialization, the server's work, the round trip and result parsing. */
  ms: number;
  /** CPU time of the database's backends meanwhile (10 ms ticks: meaningful summed over many calls). */
  serverCpuMs?: number;
}

/** `INSERT INTO cve_source`, `SELECT … FROM "cve"`: what a statement does, without its payload. */
function statementOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const write = /^(insert into \S+|delete from \S+|update \S+|select pg_advisory_xact_lock)/i.exec(flat);
  if (write) return write[0];
  const read = /^select .*? from (\S+)/i.exec(flat);
  return read ? `SELECT … FROM ${read[1]}` : flat.slice(0, 40);
}

/**
 * Starts timing: `results()` gives the timings so far, slowest statement first; `reset()` forgets
 * them. For a PostgreSQL `database` on this machine, also the backends' CPU time per statement: the
 * import runs one statement at a time, so the backends' CPU between call and result is that
 * statement's. Start it before the database is opened: each pooled connection binds the driver's
 * query method as it connects (src/db/client.ts), so a later patch would time nothing.
 */
export function timeQueries(target: { embedded: true } | { database: string }): {
  results(): QueryTiming[];
  reset(): void;
} {
  const timings = new Map<string, QueryTiming>();
  const serverCpu = 'database' in target ? backendCpuReader(target.database) : () => undefined;
  // Both drivers take (text, params, …) and return a promise; PGlite's query is inherited, so
  // assigning it on PGlite.prototype shadows it without touching the base class.
  const proto = ('database' in target ? pg.Client.prototype : PGlite.prototype) as unknown as {
    query: (...args: unknown[]) => unknown;
  };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    const cpuBefore = serverCpu();
    const started = performance.now();
    const result = original.apply(this, args);
    const done = () => {
      const ms = performance.now() - started;
      const cpuAfter = serverCpu();
      const key = statementOf(text);
      const t = timings.get(key) ?? { statement: key, calls: 0, ms: 0 };
      t.calls++;
      t.ms += ms;
      // A backend that quit meanwhile would make the difference negative: count nothing then.
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        t.serverCpuMs = (t.serverCpuMs ?? 0) + Math.max(0, cpuAfter - cpuBefore);
      timings.set(key, t);
    };
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  return {
    results: () => [...timings.values()].sort((a, b) => b.ms - a.ms),
    reset: () => timings.clear(),
  };
}
