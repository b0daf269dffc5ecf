/**
 * Inventory matching (`POST /api/v2/match`): which CVEs affect each component at its version, and by
 * which rule (NVD's configurations, the CNA's version ranges). Pure: the service reads the candidate
 * CVEs through the vendor-key index and hands them here.
 */
import type { AffectedProduct, NvdConfiguration } from './cve.ts';
import { matchCnaAffected, type CnaRuleMatch } from './cna-affected-match.ts';
import type { InventoryComponent } from './inventory-component.ts';
import { matchNvdConfigurations, type NvdRuleMatch } from './nvd-configuration-match.ts';
import type { TextMapper } from './vendor-provenance.ts';

/** At most this many components in one call. */
export const MAX_INVENTORY = 1000;

/** What matching reads of a candidate CVE. */
export interface MatchableCve {
  cveId: string;
  nvdConfigurations: NvdConfiguration[] | null;
  /** The CNA's `affected[]` (the `mitre` statement), null when there is no CVE 5 record. */
  affected: AffectedProduct[] | null;
}

export type MatchRule = NvdRuleMatch | CnaRuleMatch;

export interface CveMatch {
  cveId: string;
  /** `affected`: a rule says this version is affected; `version_unknown`: the component has no version, its product is named. */
  verdict: 'affected' | 'version_unknown';
  rules: MatchRule[];
}

export type ComponentMatch =
  | { index: number; input: unknown; ok: true; component: InventoryComponent; cves: CveMatch[] }
  | { index: number; input: unknown; ok: false; reason: string };

const NONE: never[] = [];

/**
 * The candidate CVEs that affect the component, in CVE id order, each with the rules that say so.
 * `mapText`: the alias table, which ties a CNA entry by its text (cna-affected-match.ts).
 */
export function matchComponent(
  component: InventoryComponent,
  candidates: readonly MatchableCve[],
  mapText?: TextMapper,
): CveMatch[] {
  const out: CveMatch[] = [];
  for (const cve of candidates) {
    const nvd = cve.nvdConfigurations ? matchNvdConfigurations(cve.nvdConfigurations, component) : NONE;
    const cna = cve.affected ? matchCnaAffected(cve.affected, component, mapText) : NONE;
    if (!nvd.length && !cna.length) continue;
    const rules: MatchRule[] = !cna.length ? nvd : !nvd.length ? cna : [...nvd, ...cna];
    if (rules.length)
      out.push({
        cveId: cve.cveId,
        verdict: component.version === undefined ? 'version_unknown' : 'affected',
        rules,
      });
  }
  return out.sort((a, b) => (a.cveId < b.cveId ? -1 : a.cveId > b.cveId ? 1 : 0));
}
