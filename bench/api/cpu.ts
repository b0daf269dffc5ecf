/**
 * CPU time from /proc (Linux): of one process (all its threads), and of the PostgreSQL backends
 * serving one database. Read before and after a measured run; a backend whose connection closed in
 * between takes its CPU time with it, which the server's pool (busy throughout a run) avoids.
 */
import fs from 'node:fs';

/** utime and stime are in clock ticks of 1/100 s (USER_HZ, 100 on every Linux ABI). */
const MS_PER_TICK = 10;

function cpuTicks(pid: string): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined; // gone, or not Linux
  }
}

/** user + system CPU ms of a process; undefined when /proc does not show it. */
export function processCpuMs(pid: number): number | undefined {
  const ticks = cpuTicks(String(pid));
  return ticks === undefined ? undefined : ticks * MS_PER_TICK;
}

/** CPU ms of the live backends connected to `database`; undefined when none is visible. */
export function backendCpuMs(database: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let ticks = 0;
  let found = false;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // A backend's title: `postgres: 15/main: <user> <database> <client> <state>`.
      const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
    } catch {
      continue;
    }
    const t = cpuTicks(pid);
    if (t !== undefined) {
      ticks += t;
      found = true;
    }
  }
  return found ? ticks * MS_PER_TICK : undefined;
}

/**
 * Busy CPU ms of the whole machine (every core; idle and iowait excluded), from /proc/stat. What the
 * readings above miss shows here: PostgreSQL's parallel workers (short-lived processes whose titles
 * do not name the database) and every other process on the machine.
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
