/** Recognizing PostgreSQL errors that callers turn into domain errors (same codes on pg and PGlite). */

/** True for a unique-constraint violation (SQLSTATE 23505), e.g. two requests taking one name at once. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
