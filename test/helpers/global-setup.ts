/** Says once, at the top of the run, which databases the suite covers. */
export default function setup(): void {
  if (process.env.TEST_DATABASE_URL) {
    console.log('vulntrack tests: embedded database AND PostgreSQL server (TEST_DATABASE_URL)');
  } else {
    console.log(
      'vulntrack tests: embedded database only. PostgreSQL server tests are SKIPPED: set TEST_DATABASE_URL=postgres://… to run them.',
    );
  }
}
