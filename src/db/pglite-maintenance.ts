/**
 * What a PostgreSQL server's background processes do and the embedded PGlite, a single backend,
 * does not: checkpoints (the checkpointer) and vacuuming (autovacuum). Without them the WAL grew
 * with every write until the process ended, and every updated or deleted row stayed on disk for
 * good: re-importing 6,255 changed records grew the `cve` table by 16 MB each time, so a service
 * taking daily updates grew without bound.
 *
 * The pool calls `afterTurn()` each time the session is released; the work runs in a turn of its
 * own, between two callers' transactions, never inside one.
 */
import type { PGlite } from '@electric-sql/pglite';

/** How often, at most, the WAL written since the last checkpoint is looked at. */
const WAL_CHECK_INTERVAL_MS = 1000;
/** How often, at most, the tables' dead rows are counted. */
const VACUUM_CHECK_INTERVAL_MS = 60_000;

/**
 * The tables due for a VACUUM, by autovacuum's default rule (autovacuum_vacuum_threshold 50,
 * autovacuum_vacuum_scale_factor 0.2): more dead rows than 50 + 20 % of the live ones.
 */
const TABLES_TO_VACUUM = `
  SELECT format('%I.%I', schemaname, relname) AS name
  FROM pg_stat_user_tables
  WHERE n_dead_tup > 50 + 0.2 * n_live_tup
  ORDER BY n_dead_tup DESC`;

type Session = Pick<PGlite, 'query' | 'exec'>;

export class PGliteMaintenance {
  private lastWalCheck = 0;
  private lastVacuumCheck = 0;
  private running = false;

  /** `exclusive` runs a function on the session in a turn of its own. */
  constructor(private readonly exclusive: (fn: (pg: Session) => Promise<void>) => Promise<void>) {}

  afterTurn(): void {
    const now = Date.now();
    const walDue = now - this.lastWalCheck >= WAL_CHECK_INTERVAL_MS;
    const vacuumDue = now - this.lastVacuumCheck >= VACUUM_CHECK_INTERVAL_MS;
    if (this.running || (!walDue && !vacuumDue)) return;
    this.running = true;
    if (walDue) this.lastWalCheck = now;
    if (vacuumDue) this.lastVacuumCheck = now;
    this.exclusive(async (pg) => {
      if (vacuumDue) await vacuum(pg);
      if (walDue) await checkpoint(pg);
    })
      // A failed check (the database closing) is tried again at a later turn; nothing waits on it.
      .catch(() => {})
      .finally(() => (this.running = false));
  }
}

/** VACUUM (not FULL: the space is reused, not returned) of each table with many dead rows. */
async function vacuum(pg: Session): Promise<void> {
  const { rows } = await pg.query<{ name: string }>(TABLES_TO_VACUUM);
  for (const { name } of rows) await pg.exec(`VACUUM ${name}`);
}

/**
 * A CHECKPOINT once the WAL written since the last one reaches the session's max_wal_size (set where
 * PGlite starts, client.ts): older WAL can then go.
 */
async function checkpoint(pg: Session): Promise<void> {
  const { rows } = await pg.query<{ due: boolean }>(
    `SELECT pg_current_wal_lsn() - (pg_control_checkpoint()).redo_lsn
              >= pg_size_bytes(current_setting('max_wal_size')) AS due`,
  );
  if (rows[0]?.due) await pg.exec('CHECKPOINT');
}
