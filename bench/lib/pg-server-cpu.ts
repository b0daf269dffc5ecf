/**
 * CPU time of the PostgreSQL backends serving one database, read from /proc when the server runs on
 * this machine. With the Node process's own CPU time it splits an import's cost between client and
 * server, and unlike wall time it barely moves when other work competes for the cores.
 */
import fs from 'node:fs';

/** Linux reports utime/stime in clock ticks of 1/100 s (USER_HZ, fixed at 100 on every Linux ABI). */
const MS_PER_TICK = 10;
/** How often the list of backends is refreshed: scanning /proc costs milliseconds, a stat file microseconds. */
const RESCAN_MS = 1000;

function backendPids(database: string): string[] {
  const pids: string[] = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // A backend's title: `postgres: 15/main: <user> <database> <client> <state>`.
      const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${database} `)) pids.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** user + system clock ticks of a process; undefined when it is gone (or not Linux). */
export function cpuTicks(pid: string): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined; // the backend is gone (its connection closed)
  }
}

/** Reads the CPU time of `database`'s backends; undefined where /proc shows none (another OS or host). */
export function backendCpuReader(database: string): () => number | undefined {
  let pids: string[] = [];
  let scanned = -Infinity;
  return () => {
    if (process.platform !== 'linux') return undefined;
    if (performance.now() - scanned > RESCAN_MS) {
      pids = backendPids(database);
      scanned = performance.now();
    }
    let ticks = 0;
    let found = false;
    for (const pid of pids) {
      const t = cpuTicks(pid);
      if (t !== undefined) {
        ticks += t;
        found = true;
      }
    }
    return found ? ticks * MS_PER_TICK : undefined;
  };
}

/** user + system CPU ms of a process (all its threads); undefined when /proc does not show it. */
export function processCpuMs(pid: number): number | undefined {
  const ticks = cpuTicks(String(pid));
  return ticks === undefined ? undefined : ticks * MS_PER_TICK;
}

/**
 * Busy CPU ms of the whole machine (every core; idle and iowait excluded), from /proc/stat. What the
 * per-process readings miss shows here: PostgreSQL's parallel workers (short-lived processes whose
 * titles do not name the database) and every other process on the machine.
 */
export function machineCpuMs(): number | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [, ...fields] = line.trim().split(/\s+/);
    const ticks = fields.map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest is in user)
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return (total - idle) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}
