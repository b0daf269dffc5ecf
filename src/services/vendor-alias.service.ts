/**
 * The CNA-text alias table as the catalog uses it (docs/catalog.md, "From CNA text to vendor keys"):
 * the mapper imports apply to a record's CNA and ADP `affected[]` text; the table, learned from the
 * catalog itself (`learn`: every CVE with both the CNA's text and CPE keys from NVD, CISA-ADP or the
 * CNA teaches), or before any learning the one learned from the bundled sample (`data/sample/`); and
 * the operator's own aliases and vetoes, which outlive every learning. A process keeps the mapper in
 * memory and reloads it when the stored revision moves (a learn, an override: here or elsewhere).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { RemapProgress, RemapReport } from '../domain/import-report.ts';
import { TokenRepository } from '../db/token.repository.ts';
import {
  teachingStatements,
  VendorAliasRepository,
  type StoredOverride,
} from '../db/vendor-alias.repository.ts';
import { containersOfStatements } from '../domain/cna-containers.ts';
import { splitVendorKey, vendorKey } from '../domain/cpe.ts';
import type { SourceDocument } from '../domain/cve.ts';
import { AppError } from '../domain/errors.ts';
import {
  aliasLookup,
  mapCnaKeysWithOverrides,
  overrideProblem,
  type AliasOverride,
  type OverrideAction,
  type TableMapping,
} from '../domain/vendor-alias-overrides.ts';
import {
  AliasLearner,
  compactTable,
  confidentKeys,
  DEFAULT_THRESHOLD,
  type AliasTable,
  type Cve5Containers,
  type MappedKeys,
} from '../domain/vendor-aliases.ts';
import { inputFiles, lines } from '../sources/input.ts';
import { SAMPLE_DIR } from './sample.service.ts';

/** The job that learns the table anew from the catalog (daily, and on demand: `vulntrack vendors learn`). */
export const LEARN_VENDOR_ALIASES_JOB = 'vendors.learn';

/** The job that merges the catalog again with the current table and overrides (queued by an override's change). */
export const REMAP_VENDOR_KEYS_JOB = 'vendors.remap';

/**
 * One re-map per revision an override made: two changes in a row queue two, the second finding less to
 * do. `keys`: only the CVEs carrying one of them need it (the minted keys of the catalog's merges).
 */
export const remapJob = (revision: string, keys?: readonly string[]) => [
  {
    name: REMAP_VENDOR_KEYS_JOB,
    dedupeKey: `${REMAP_VENDOR_KEYS_JOB}:${revision}`,
    ...(keys ? { payload: { keys: [...keys] } } : {}),
  },
];

/** Merges the catalog's CVEs (or only those carrying one of `keys`) again with the current table. */
export type RemapCatalog = (
  progress: (line: RemapProgress) => void,
  keys?: readonly string[],
) => Promise<RemapReport>;

/** The table learned from the bundled sample (`npm run learn-sample-aliases` writes it). */
export const SHIPPED_ALIASES = path.join(SAMPLE_DIR, 'vendor-aliases.json.gz');

/**
 * The table a file of CVE 5 records (JSON Lines, gzip or not) teaches, as `learn` would from the same
 * records imported: what `scripts/learn-sample-aliases.ts` ships for the bundled sample. The records
 * are held in memory: meant for sample-sized files.
 */
export async function aliasTableOfCve5File(
  file: string,
): Promise<{ learnedFrom: number; table: AliasTable }> {
  const records: { containers?: Cve5Containers }[] = [];
  for await (const input of inputFiles(file)) {
    for await (const { line } of lines(await input.open())) {
      if (line.trim()) records.push(JSON.parse(line) as { containers?: Cve5Containers });
    }
  }
  return aliasTableOfRecords(records);
}

/** The (compacted) table these CVE 5 records teach, and how many of them taught it. */
export function aliasTableOfRecords(records: Iterable<{ containers?: unknown }>): {
  learnedFrom: number;
  table: AliasTable;
} {
  const learner = new AliasLearner(DEFAULT_THRESHOLD);
  let learnedFrom = 0;
  for (const record of records)
    if (learner.learn(record.containers as Cve5Containers | undefined)) learnedFrom++;
  return { learnedFrom, table: compactTable(learner.toJSON()) };
}

/** Maps CNA (or ADP) containers to catalog keys with one revision of the table and overrides. */
export interface CnaKeyMapper {
  /** The stored revision this mapper was built from. */
  readonly revision: string;
  map(containers: Cve5Containers | undefined): MappedKeys;
}

/** Who asks for an override: an API token (row id), or the command line (an optional name for the record). */
export type OverrideAuthor = { apiToken: string } | { commandLine: string | null };

/** What the table is and where it came from. */
export interface AliasTableStatus {
  origin: 'shipped' | 'learned' | 'none';
  learnedFrom: number;
  learnedAt: Date | null;
  revision: string;
  vendorTexts: number;
  productTexts: number;
  vendorKeys: number;
  productKeys: number;
  overrides: number;
}

export interface LearnReport extends AliasTableStatus {
  /** CVEs whose statements were read. */
  read: number;
  durationMs: number;
  /** The catalog merged again with the new table: CVEs examined, those whose keys moved, changes recorded. */
  remap: RemapReport | null;
}

/** How one text maps: the evidence the table holds for it and the keys a record with it gets. */
export interface TextExplanation {
  vendorText: string;
  productText?: string | undefined;
  /** Learned evidence: in how many records the text appeared, each key with its count and whether it is confident. */
  evidence: { records: number; keys: { key: string; records: number; confident: boolean }[] } | null;
  /** The keys a CNA entry with this text gets now (overrides applied), with the rule of each. */
  mapped: MappedKeys;
  overrides: StoredOverride[];
}

/** A table that knows no text and no key: maps nothing but the CNA's own CPEs and operator aliases. */
export function emptyAliasTable(): AliasTable {
  return {
    version: 1,
    threshold: DEFAULT_THRESHOLD,
    vendorKeys: {},
    productKeys: {},
    vendors: {},
    products: {},
  };
}

function isAliasTable(
  value: Record<string, unknown> | undefined,
): value is AliasTable & Record<string, unknown> {
  return !!value && typeof value.version === 'number' && typeof value.vendors === 'object';
}

/** A key as typed: blanks around it dropped, its vendor and product lower-cased (not the `$PRODUCT$` separator). */
function typedKey(typed: string): string {
  const { vendor, product } = splitVendorKey(typed.trim());
  return vendorKey(vendor.toLowerCase(), product?.toLowerCase());
}

const count = (record: Record<string, unknown> | undefined) => (record ? Object.keys(record).length : 0);

export class VendorAliasService {
  private readonly aliases: VendorAliasRepository;
  private readonly tokens: TokenRepository;
  private cached:
    | { mapper: CnaKeyMapper; table: AliasTable; overrides: StoredOverride[]; status: AliasTableStatus }
    | undefined;

  private readonly shippedFile: string;
  private readonly mapTable: TableMapping | undefined;
  private readonly remap: RemapCatalog | undefined;

  /**
   * `remap`: merges the catalog's CVEs again with the table just learned (`ImportService`'s
   * `remapVendorKeys`; the composition root wires it, since imports take their mapper from here).
   * `mapTable`: how the table maps text before the overrides (`mapCnaKeys`; a test gives its own).
   */
  constructor(
    private readonly db: Kysely<DB>,
    options: {
      shippedFile?: string;
      remap?: RemapCatalog;
      mapTable?: TableMapping;
    } = {},
  ) {
    this.shippedFile = options.shippedFile ?? SHIPPED_ALIASES;
    this.mapTable = options.mapTable;
    this.remap = options.remap;
    this.aliases = new VendorAliasRepository(db);
    this.tokens = new TokenRepository(db);
  }

  /**
   * Who makes an override: through the API, the token's creator when a server administrator, else 403
   * (aliases apply to every organization); at the command line, the operator of the server itself.
   */
  private async operator(by: OverrideAuthor): Promise<string | null> {
    if (!('apiToken' in by)) return by.commandLine;
    const tokenRowId = by.apiToken;
    const username = await this.tokens.administratorCreator(tokenRowId);
    if (!username) {
      throw new AppError(
        'permission_denied',
        "Only a token created by a server administrator can change the catalog's vendor aliases (they apply to every organization).",
      );
    }
    return username;
  }

  /**
   * The current mapper: one small read to check the revision, a reload only when it moved. Before any
   * table is stored (a new install), the shipped table is stored first, so a new catalog maps at once.
   */
  async mapper(): Promise<CnaKeyMapper> {
    return (await this.current()).mapper;
  }

  /** The table, the overrides and what they amount to, read once per stored revision. */
  private async current() {
    let revision = await this.aliases.revision();
    if (revision === '0') {
      await this.installShipped();
      revision = await this.aliases.revision();
    }
    if (this.cached?.mapper.revision === revision) return this.cached;
    const [stored, overrides] = await Promise.all([this.aliases.table(), this.aliases.overrides()]);
    const known = isAliasTable(stored?.aliases) ? stored.aliases : undefined;
    const table = known ?? emptyAliasTable();
    const rules: AliasOverride[] = overrides.map((o) => ({
      vendorText: o.vendorText,
      productText: o.productText ?? undefined,
      key: o.key,
      action: o.action,
    }));
    const status: AliasTableStatus = {
      origin: known ? stored!.origin : 'none',
      learnedFrom: stored?.learnedFrom ?? 0,
      learnedAt: stored?.learnedAt ?? null,
      revision: stored?.revision ?? revision,
      vendorTexts: count(known?.vendors),
      productTexts: count(known?.products),
      vendorKeys: count(known?.vendorKeys),
      productKeys: count(known?.productKeys),
      overrides: overrides.length,
    };
    this.cached = {
      table,
      overrides,
      status,
      mapper: {
        revision: status.revision,
        map: (containers) => mapCnaKeysWithOverrides(table, rules, containers, this.mapTable),
      },
    };
    return this.cached;
  }

  /**
   * Stores the table learned from the bundled sample when no table is stored yet; returns whether it
   * did. A missing shipped file stores an empty table (and says nothing: the mapping still uses CPEs).
   */
  async installShipped(): Promise<boolean> {
    let aliases: AliasTable = emptyAliasTable();
    let learnedFrom = 0;
    if (fs.existsSync(this.shippedFile)) {
      const shipped = JSON.parse(gunzipSync(fs.readFileSync(this.shippedFile)).toString('utf8')) as {
        learnedFrom: number;
        table: AliasTable;
      };
      aliases = shipped.table;
      learnedFrom = shipped.learnedFrom;
    }
    return this.aliases.saveTable(
      { aliases: aliases as unknown as Record<string, unknown>, origin: 'shipped', learnedFrom },
      true,
    );
  }

  async status(): Promise<AliasTableStatus> {
    return (await this.current()).status;
  }

  /**
   * Learns the table anew from the whole catalog (every CVE with the CNA's text and CPE keys from
   * NVD, CISA-ADP or the CNA itself teaches; every CPE key is vocabulary) and stores it in place of
   * the one before; then merges the catalog's CVEs again with it (`remap`), so a CVE whose text now
   * maps to another key gets it (a project it enters hears of it) or loses it (recorded, no alert).
   * `progress` hears after each batch of CVEs read, then after each batch re-mapped.
   */
  async learn(progress?: (step: { read: number } | { remap: RemapProgress }) => void): Promise<LearnReport> {
    const started = Date.now();
    const learner = new AliasLearner(DEFAULT_THRESHOLD);
    let read = 0;
    let taught = 0;
    for await (const batch of teachingStatements(this.db)) {
      for (const { documents } of batch) {
        const docs = documents as Partial<Record<'mitre' | 'vulnrichment' | 'nvd', SourceDocument>>;
        if (learner.learn(containersOfStatements(docs))) taught++;
        else if (docs.nvd?.cpes.length) learner.learnCpes(docs.nvd.cpes);
      }
      read += batch.length;
      progress?.({ read });
    }
    // Without the keys no threshold of the table can choose: the same answers, less than half the size.
    const table = compactTable(learner.toJSON());
    await this.aliases.saveTable({
      aliases: table as unknown as Record<string, unknown>,
      origin: 'learned',
      learnedFrom: taught,
    });
    const remap = await this.remapCatalog((p) => progress?.({ remap: p }));
    return { ...(await this.status()), read, remap, durationMs: Date.now() - started };
  }

  /**
   * Merges the catalog's CVEs again with the current table and overrides (the `vendors.remap` job an
   * override's change queues): a CVE whose text an alias now maps gets the key (a project it enters
   * hears of it), one a veto takes it from loses it (recorded, no alert). Null when this process
   * cannot re-map (no importer wired). `keys`: only the CVEs carrying one of them.
   */
  async remapCatalog(
    progress?: (line: RemapProgress) => void,
    keys?: readonly string[],
  ): Promise<RemapReport | null> {
    return this.remap ? this.remap(progress ?? (() => {}), keys) : null;
  }

  /** What the table holds for a text, and the keys a record naming it gets now. */
  async explain(vendorText: string, productText?: string): Promise<TextExplanation> {
    const lookup = aliasLookup(vendorText, productText);
    if (!lookup) {
      throw new AppError(
        'validation_error',
        overrideProblem({ vendorText, productText, key: 'x', action: 'add' }),
      );
    }
    const { table, mapper, overrides: all } = await this.current();
    const learned = productText === undefined ? table.vendors[lookup] : table.products[lookup];
    const confident = new Set(confidentKeys(table, learned).map(([key]) => key));
    const entry =
      productText === undefined ? { vendor: vendorText } : { vendor: vendorText, product: productText };
    const overrides = all.filter((o) => aliasLookup(o.vendorText, o.productText ?? undefined) === lookup);
    return {
      vendorText,
      productText,
      evidence: learned
        ? {
            records: learned.records,
            keys: Object.entries(learned.keys)
              .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
              .map(([key, records]) => ({ key, records, confident: confident.has(key) })),
          }
        : null,
      mapped: mapper.map({ cna: { affected: [entry] } }),
      overrides,
    };
  }

  /** The table's status and the operator's overrides, for one answer. */
  async overview(): Promise<{ status: AliasTableStatus; overrides: StoredOverride[] }> {
    const { status, overrides } = await this.current();
    return { status, overrides };
  }

  async listOverrides(): Promise<StoredOverride[]> {
    return (await this.current()).overrides;
  }

  /**
   * An operator's alias (`add`: records with this text get this key) or veto (`veto`: they never get
   * it from their text). Replaces the other action for the same text and key. New and changed records
   * map with it at once; the catalog's CVEs are re-mapped by the `vendors.remap` job it queues. 400
   * with a sentence for a placeholder text or a malformed key.
   */
  async setOverride(
    input: { vendorText: string; productText?: string | undefined; key: string; action: OverrideAction },
    by: OverrideAuthor,
  ): Promise<StoredOverride> {
    const createdBy = await this.operator(by);
    const override: AliasOverride = { ...input, key: typedKey(input.key) };
    const problem = overrideProblem(override);
    if (problem) throw new AppError('validation_error', problem);
    return this.aliases.saveOverride(
      {
        vendorText: override.vendorText.trim(),
        productText: override.productText?.trim() ?? null,
        key: override.key,
        action: override.action,
        lookup: aliasLookup(override.vendorText, override.productText)!,
        createdBy,
      },
      remapJob,
    );
  }

  /** Removes the operator's alias or veto for this text and key; 404 when there is none. */
  async removeOverride(
    input: { vendorText: string; productText?: string | undefined; key: string },
    by: OverrideAuthor,
  ): Promise<void> {
    await this.operator(by);
    const lookup = aliasLookup(input.vendorText, input.productText);
    const removed = lookup && (await this.aliases.deleteOverride(lookup, typedKey(input.key), remapJob));
    if (!removed) {
      const text =
        input.productText === undefined ? input.vendorText : `${input.vendorText} / ${input.productText}`;
      throw new AppError('not_found', `No alias or veto of "${text}" → ${input.key} to remove.`);
    }
  }
}
