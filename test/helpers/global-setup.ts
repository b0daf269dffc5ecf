/**
 * Once per test run: says which databases the suite covers, and writes a migrated embedded database
 * that every test database starts from (a copy opens in a fraction of a fresh init plus migrations).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeEmbeddedTemplate } from '../../src/db/client.ts';

declare module 'vitest' {
  interface ProvidedContext {
    embeddedTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env.TEST_DATABASE_URL) {
    console.log('vulntrack tests: embedded database AND PostgreSQL server (TEST_DATABASE_URL)');
  } else {
    console.log(
      'vulntrack tests: embedded database only. PostgreSQL server tests are SKIPPED: set TEST_DATABASE_URL=postgres://… to run them.',
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulntrack-test-template-'));
  const file = path.join(dir, 'migrated.tar');
  await writeEmbeddedTemplate(file);
  project.provide('embeddedTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
