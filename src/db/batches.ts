/**
 * Multi-row statements kept under PostgreSQL's limit of 65,535 bind parameters a statement (the
 * protocol counts them in 16 bits: one more and the server answers "bind message has … parameter
 * formats but 0 parameters"). An upload resolving 50,000 CVEs writes that many tracker rows.
 */
const MAX_PARAMETERS = 60_000;

/** `rows` in slices small enough for one statement of `columns` parameters a row. */
export function* statementBatches<T>(rows: readonly T[], columns: number): Generator<T[]> {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
