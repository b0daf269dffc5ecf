/**
 * Alias tables for tests (docs/catalog.md, "From CNA text to vendor keys"): learned with the real
 * learner from real CVE 5 records and stored as `vulntrack vendors learn` stores one, so imports map
 * CNA text with it.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { VendorAliasRepository } from '../../src/db/vendor-alias.repository.ts';
import { aliasLookup } from '../../src/domain/vendor-alias-overrides.ts';
import type { AliasTable } from '../../src/domain/vendor-aliases.ts';
import { aliasTableOfRecords } from '../../src/services/vendor-alias.service.ts';

/** The CVE 5 records (one per line) of a `.jsonl` or `.jsonl.gz` file. */
function records(file: string): { containers?: unknown }[] {
  const bytes = fs.readFileSync(file);
  const text = file.endsWith('.gz') ? zlib.gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { containers?: unknown });
}

const learned = new Map<string, AliasTable>();

/** The table learned from these files' records (once per file set and test process). */
export function learnAliasTable(files: string[]): AliasTable {
  const key = files.join('\n');
  let table = learned.get(key);
  if (!table) {
    table = aliasTableOfRecords(files.flatMap(records)).table;
    learned.set(key, table);
  }
  return table;
}

/** Stores the table learned from `files` in place of the one before (the revision moves). */
export async function storeAliasTable(db: Kysely<DB>, files: string[]): Promise<AliasTable> {
  const table = learnAliasTable(files);
  await new VendorAliasRepository(db).saveTable({
    aliases: table as unknown as Record<string, unknown>,
    origin: 'learned',
    learnedFrom: files.reduce((n, f) => n + records(f).length, 0),
  });
  return table;
}

/** The bundled sample (`data/sample/cve5-sample.jsonl.gz`): what a new install learns its first table from. */
export const SAMPLE_RECORDS = 'data/sample/cve5-sample.jsonl.gz';

/** Small real records that teach "Apache Software Foundation", "Oracle / WebLogic Server", "SourceCodester / Employee Task Management System". */
export const LEARNING_RECORDS = 'test/fixtures/cve5/alias-learning.jsonl';

/**
 * The test worlds' aliases: the table learned from the bundled sample (a new install's), and one
 * operator alias, "Apache Software Foundation / Apache Log4j2" → `apache$PRODUCT$log4j2`. The worlds'
 * subscriptions, lists and payloads name that key (the old text rule gave it to Log4Shell); no CPE of
 * the sample names the product, so the table alone gives Log4Shell only `apache`, and an operator
 * alias is how a deployment would keep the key.
 */
export async function storeTestAliases(db: Kysely<DB>): Promise<void> {
  await storeAliasTable(db, [SAMPLE_RECORDS]);
  await addOperatorAlias(db, 'Apache Software Foundation', 'Apache Log4j2', 'apache$PRODUCT$log4j2');
}

/** An operator's alias (`vendor_alias_override`, action `add`), once. */
export async function addOperatorAlias(
  db: Kysely<DB>,
  vendorText: string,
  productText: string | undefined,
  key: string,
): Promise<void> {
  const repository = new VendorAliasRepository(db);
  const lookup = aliasLookup(vendorText, productText)!;
  if ((await repository.overrides()).some((o) => o.key === key && o.vendorText === vendorText)) return;
  await repository.saveOverride({
    vendorText,
    productText: productText ?? null,
    key,
    action: 'add',
    lookup,
    createdBy: null,
  });
}
