/** Shapes shared by the API benchmark's driver and its child phases (JSON over IPC). */

/** Where the catalog lives: a database on a PostgreSQL server, or an embedded PGlite data dir. */
export type ApiTarget =
  { kind: 'postgres'; serverUrl: string; database: string } | { kind: 'embedded'; dataDir: string };

export type TargetKind = ApiTarget['kind'];

export interface CatalogSpec {
  target: ApiTarget;
  /** Rows wanted in `cve`. */
  size: number;
  /** The CVE 5 corpus (.jsonl.gz) imported before the rows are replicated. */
  corpus: string;
  /** Build even when a cached PostgreSQL database looks right. */
  rebuild: boolean;
  /** The benchmark's user and organization (created when missing). */
  username: string;
  org: string;
}

/** The words, vendors and ids the endpoints use, chosen from the catalog itself. */
export interface EndpointParams {
  org: string;
  project: string;
  /** The most frequent vendor (without product): `vendor=` and the vendor term of `q`. */
  vendor: string;
  searchWord: string;
  q: string;
  cveId: string;
  deepPage: number;
  /** The project's subscriptions, as the subscriptions API takes them. */
  subscriptions: { vendors: string[]; products: Record<string, string[]> };
  /** The same as vendor keys (`vendor` or `vendor$PRODUCT$product`), as on `cve.vendors`. */
  subscriptionKeys: string[];
}

export interface CatalogBuild {
  importMs: number;
  imported: number;
  replicateMs: number;
  vacuumMs: number;
}

export interface CatalogInfo {
  rows: number;
  /** True when a cached database was reused as it was. */
  reused: boolean;
  build?: CatalogBuild;
  openMs: number;
  databaseMiB: number;
  params: EndpointParams;
  /** The count each list endpoint must answer, by endpoint name, from hand-written SQL. */
  expected: Record<string, number>;
  /** The SQL behind each expected count. */
  expectedSql: Record<string, string>;
}

export interface ExplainSpec {
  url: string;
  params: EndpointParams;
}

/** One SQL statement an endpoint runs, as Kysely compiled it, with its plan. */
export interface ExplainedStatement {
  endpoint: string;
  /** `count` or `page` (or `detail`, `project`, …): what the statement is for. */
  role: string;
  sql: string;
  parameters: unknown[];
  plan: string;
  /** Median of five plain runs, as the client sees it (round trip included). */
  ms: number;
  /** The plan's Execution Time (per-node timing overhead included). */
  explainMs: number;
  indexes: string[];
}
