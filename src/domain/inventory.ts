/**
 * Inventories (issue 33, docs/inventories.md), the pure part: what a project keeps of an SBOM, how a
 * component is handed to the matcher and looked up by a changed CVE, and how an upgrade reads in a
 * tracker's history. No I/O.
 */
import { splitVendorKey } from './cpe.ts';
import type { InventoryComponent } from './inventory-component.ts';
import { componentKeys } from './inventory-component.ts';
import type { MatchRule } from './inventory-match.ts';
import type { SbomComponent, SbomFormat } from './sbom/sbom.ts';

/** An inventory's name: like a project's (a letter or digit, then letters, digits, ` _.-`), at most 100. */
export const INVENTORY_NAME = /^[a-zA-Z0-9][a-zA-Z0-9 _.-]{0,99}$/;
/** The largest SBOM an upload takes, in bytes. */
export const MAX_SBOM_BYTES = 50 * 1024 * 1024;
/** The most components one inventory holds. */
export const MAX_INVENTORY_COMPONENTS = 100_000;
/** Components of one inventory per page, at most. */
export const MAX_COMPONENT_PAGE = 500;

/** An inventory as a list shows it. */
export interface InventorySummary {
  name: string;
  format: SbomFormat;
  specVersion: string;
  componentCount: number;
  uploadedAt: Date;
  uploadedBy: string;
  /** CVEs its components have now (unresolved). */
  cveCount: number;
}

/** One component as stored, with how many CVEs affect it. */
export interface StoredComponent {
  position: number;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  supplier: string | null;
  ref: string | null;
  findings: number;
}

/** A CVE found for a component: the rules that say its version is affected. */
export interface Finding {
  cveId: string;
  rules: MatchRule[];
  foundAt: Date;
}

/** A finding with what a page shows beside it: the catalog's title, best score and KEV, the tracker's status. */
export interface FindingWithFacts extends Finding {
  title: string | null;
  cvssScore: number | null;
  kev: boolean;
  status: string | null;
}

/** What an upload did. */
export interface UploadSummary {
  inventory: InventorySummary;
  /** Components read from the document. */
  components: number;
  /** Components the SBOM gives no version (kept, listed as "version unknown"). */
  versionUnknown: number;
  /** Components the matcher cannot read (neither purl, CPE nor supplier and name it knows). */
  unmatchable: number;
  /** (component, CVE) findings now. */
  findings: number;
  /** CVEs the inventory has now. */
  cves: number;
  /** CVEs new to the project through this upload. */
  entered: string[];
  /** CVEs resolved by this upload (every finding gone), each with its components' before → after. */
  resolved: { cveId: string; changes: VersionChange[] }[];
}

/** A component of a resolved CVE: its version before the upload, and after (null: no longer listed). */
export interface VersionChange {
  name: string;
  before: string | null;
  after: string | null;
}

/**
 * What the matcher is given for a component: the SBOM component object (`parseComponent` reads its
 * CPE, its package URL and its name together; the supplier as the vendor), stated fields only.
 */
export function matcherInput(
  c: Pick<SbomComponent, 'name' | 'version' | 'purl' | 'cpe' | 'supplier'>,
): Record<string, string> {
  const input: Record<string, string> = { name: c.name };
  if (c.version !== undefined) input.version = c.version;
  if (c.purl !== undefined) input.purl = c.purl;
  if (c.cpe !== undefined) input.cpe = c.cpe;
  if (c.supplier !== undefined) input.vendor = c.supplier;
  return input;
}

/** The prefix of a package-name key in `inventory_component_key` (vendor keys are stored as they are). */
export const NAME_KEY = 'name ';

/** The keys a component is looked up by when a CVE changes: its vendor keys and `name <package name>`s. */
export function lookupKeys(component: InventoryComponent): string[] {
  return [...new Set([...componentKeys(component), ...component.packageNames.map((n) => NAME_KEY + n)])];
}

/**
 * A stored component read again for matching: `parsed` as `parseComponent` reads its matcher input,
 * with the (vendor, product) pairs its stored vendor keys name (those the alias table added at upload).
 */
export function withStoredKeys(parsed: InventoryComponent, keys: readonly string[]): InventoryComponent {
  const names = [...parsed.names];
  const seen = new Set(names.map((n) => `${n.vendor}:${n.product}`));
  for (const key of keys) {
    if (key.startsWith(NAME_KEY)) continue;
    const { vendor, product } = splitVendorKey(key);
    if (!product || seen.has(`${vendor}:${product}`)) continue;
    seen.add(`${vendor}:${product}`);
    names.push({ vendor, product });
  }
  return names.length === parsed.names.length ? parsed : { ...parsed, names };
}

/** "log4j-core 2.14.1 → 2.17.1, openssl 1.0.1f → removed": a resolution as the tracker's history says it. */
export function changesText(changes: readonly VersionChange[]): string {
  return changes
    .map((c) => `${c.name} ${c.before ?? 'version unknown'} → ${c.after ?? 'removed'}`)
    .join(', ');
}

/** One CVE of an inventory as the VEX export reads it: its components, the tracker's triage. */
export interface VexRow {
  cve_id: string;
  /** Set when an upload resolved it (every finding gone). */
  resolved_at: Date | null;
  resolution: { changes: VersionChange[] } | null;
  /** The project's tracker status (null: none). */
  status: string | null;
  /** The components found affected (empty once resolved). */
  components: { name: string; version: string | null; purl: string | null; ref: string | null }[];
  /** The latest comment on the CVE in the project's tracker. */
  comment: string | null;
}

/** The flag key (`KeyFlag.key`) under which a CVE concerns a project through its inventories. */
export const inventoryFlagKey = (projectId: string) => `inventory ${projectId}`;
export const INVENTORY_FLAG = inventoryFlagKey('');

/** What an `inventory` event says (the payload's `cve_affects_component` details). */
export interface InventoryEventDetails {
  projectId: string;
  /** The CVE was not the project's before (no subscribed key, watched keyword or other inventory). */
  enters: boolean;
  inventory: string;
  component: { name: string; version: string | null; purl: string | null };
  rules: MatchRule[];
}
