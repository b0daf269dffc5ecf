/**
 * The CNA-text alias table as the catalog uses it (docs/catalog.md, "From CNA text to vendor keys"):
 * the mapper imports apply to a record's CNA and ADP `affected[]` text, the table learned from the
 * catalog itself (at first start the one learned from the bundled sample), and the operator's own
 * aliases and vetoes. One process keeps the mapper in memory and reloads it when the stored revision
 * moves (a learn, an override: from this process or another).
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { VendorAliasRepository } from '../db/vendor-alias.repository.ts';
import { mapCnaKeysWithOverrides, type AliasOverride } from '../domain/vendor-alias-overrides.ts';
import {
  DEFAULT_THRESHOLD,
  type AliasTable,
  type Cve5Containers,
  type MappedKeys,
} from '../domain/vendor-aliases.ts';

/** Maps CNA (or ADP) containers to catalog keys with one revision of the table and overrides. */
export interface CnaKeyMapper {
  /** The stored revision this mapper was built from ('0': no table stored yet). */
  readonly revision: string;
  map(containers: Cve5Containers | undefined): MappedKeys;
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

export class VendorAliasService {
  private readonly aliases: VendorAliasRepository;
  private cached: CnaKeyMapper | undefined;

  constructor(db: Kysely<DB>) {
    this.aliases = new VendorAliasRepository(db);
  }

  /** The current mapper: one small read to check the revision, a reload only when it moved. */
  async mapper(): Promise<CnaKeyMapper> {
    const revision = await this.aliases.revision();
    if (this.cached?.revision === revision) return this.cached;
    const [stored, overrides] = await Promise.all([this.aliases.table(), this.aliases.overrides()]);
    const table =
      stored && (stored.aliases as { version?: unknown }).version !== undefined
        ? (stored.aliases as unknown as AliasTable)
        : emptyAliasTable();
    const rules: AliasOverride[] = overrides.map((o) => ({
      vendorText: o.vendorText,
      productText: o.productText ?? undefined,
      key: o.key,
      action: o.action,
    }));
    this.cached = {
      revision: stored?.revision ?? revision,
      map: (containers) => mapCnaKeysWithOverrides(table, rules, containers),
    };
    return this.cached;
  }
}
