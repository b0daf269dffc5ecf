/** Table types for Kysely. One interface per table; the migrations are the source of truth. */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface CveTable {
  id: Generated<string>;
  cve_id: string;
  state: string;
  title: string | null;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  metrics: Json<Record<string, unknown>>;
  cvss20: number | null;
  cvss30: number | null;
  cvss31: number | null;
  cvss40: number | null;
  kev: boolean;
  epss: number | null;
  vendors: string[];
  weaknesses: string[];
  cpes: string[];
  references: Json<unknown[]>;
  nvd_configurations: Json<unknown[] | null>;
  providers: string[];
  inserted_at: Generated<Date>;
  modified_at: Generated<Date>;
}

export interface CveSourceTable {
  cve_id: string;
  provider: string;
  data: Json<Record<string, unknown>>;
  raw: Json<Record<string, unknown> | null>;
  hash: string;
  updated_at: Generated<Date>;
}

export interface CveChangeTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  cve_id: string;
  types: string[];
  data: Json<unknown[]>;
}

export interface VendorTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ProductTable {
  id: Generated<string>;
  vendor_id: string;
  name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WeaknessTable {
  id: Generated<string>;
  cwe_id: string;
  name: string | null;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ImportRunTable {
  id: Generated<string>;
  source: string;
  started_at: Generated<Date>;
  finished_at: Date | null;
  status: string;
  counts: Json<Record<string, number>>;
  problems: Json<unknown[]>;
}

export interface DB {
  cve: CveTable;
  cve_source: CveSourceTable;
  cve_change: CveChangeTable;
  vendor: VendorTable;
  product: ProductTable;
  weakness: WeaknessTable;
  import_run: ImportRunTable;
}

export type CveRow = Selectable<CveTable>;
export type NewCveRow = Insertable<CveTable>;
