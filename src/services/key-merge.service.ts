/**
 * Remembers, catalog-wide, that a key minted from a CNA's name merged into the key a CPE later named
 * for the same text (docs/catalog.md, "Merging minted keys"): the import finds the merge as it merges
 * a CVE (`deriveVendorKeys`, `KeyMerge`); here the text becomes an alias override made by `catalog`
 * (so the CVEs already carrying the minted key move, through one `vendors.remap` job per call that
 * reads only the CVEs carrying the minted keys, and future records with that text map to the merged
 * key; an operator vetoes or redirects it with the existing override commands), and every project subscribed to the minted key is subscribed to the
 * merged one too, with an audit entry by the `catalog` actor.
 */
import type { Kysely } from 'kysely';
import { AuditRepository } from '../db/audit.repository.ts';
import { ProjectRepository } from '../db/project.repository.ts';
import { transact } from '../db/transact.ts';
import type { DB } from '../db/schema.ts';
import { VendorAliasRepository, type NewOverride } from '../db/vendor-alias.repository.ts';
import { CATALOG_ACTOR } from '../domain/actor.ts';
import { aliasLookup } from '../domain/vendor-alias-overrides.ts';
import { mergeText, type KeyMerge } from '../domain/vendor-provenance.ts';
import { remapJob } from './vendor-alias.service.ts';

/** The name an override the catalog made is recorded under (`created_by`). */
export const CATALOG_OVERRIDE_AUTHOR = 'catalog';

/** What remembering a set of merges did. */
export interface KeyMergeReport {
  /** Texts that now map to the merged key (an override made by `catalog`). */
  remembered: { vendorText: string; productText?: string; from: string; into: string }[];
  /** Texts left alone: an override of that text already exists (the operator's word, or an earlier merge). */
  skipped: number;
  /** Projects now subscribed to a merged key. */
  projects: number;
}

export class KeyMergeService {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Remembers each merge whose text has no override yet (any alias or veto of the text, by an
   * operator or an earlier merge, has the last word: that merge is left alone). Idempotent.
   *
   * A project subscribed to the minted key keeps it beside the merged key: the CVE's move from one
   * key to the other then does not look like the CVE entering the project (no second
   * `cve_enters_project`, no second alert), whichever runs first, the event processor or this; and a
   * veto that brings the minted key back keeps the project subscribed.
   *
   * Given the transaction that wrote the CVEs the merges were found in (`db`, an import's), it
   * remembers them in it: committed with those CVEs or not at all, so a sync killed between the two
   * loses none (the next run finds no new merge in CVEs already merged).
   */
  async remember(merges: readonly KeyMerge[], db: Kysely<DB> = this.db): Promise<KeyMergeReport> {
    const report: KeyMergeReport = { remembered: [], skipped: 0, projects: 0 };
    if (!merges.length) return report;
    const aliases = new VendorAliasRepository(db);
    const overridden = new Set(
      (await aliases.overrides()).map((o) => aliasLookup(o.vendorText, o.productText ?? undefined)),
    );
    const seen = new Set<string>();
    const kept: KeyMerge[] = [];
    const saved: NewOverride[] = [];
    for (const merge of merges) {
      const text = mergeText(merge.from, merge.text);
      if (!text || seen.has(text.lookup)) continue;
      seen.add(text.lookup);
      if (overridden.has(text.lookup)) {
        report.skipped++;
        continue;
      }
      kept.push(merge);
      saved.push({
        vendorText: text.vendorText,
        productText: text.productText ?? null,
        key: merge.into,
        action: 'add',
        lookup: text.lookup,
        createdBy: CATALOG_OVERRIDE_AUTHOR,
      });
      report.remembered.push({
        vendorText: text.vendorText,
        ...(text.productText === undefined ? {} : { productText: text.productText }),
        from: merge.from,
        into: merge.into,
      });
    }
    // One revision for them all: one re-map, of the CVEs carrying the minted keys only.
    const minted = [...new Set(kept.map((m) => m.from))];
    await aliases.saveOverrides(saved, (revision) => remapJob(revision, minted));
    for (const merge of kept) report.projects += await this.moveSubscriptions(merge, db);
    return report;
  }

  /** Subscribes every project subscribed to `from` to `into` as well; returns how many it subscribed. */
  private async moveSubscriptions(merge: KeyMerge, db: Kysely<DB>): Promise<number> {
    const projects = new ProjectRepository(db);
    const audit = new AuditRepository(db);
    let moved = 0;
    for (const project of await projects.subscribersOf(merge.from)) {
      const added = await transact(db, async (tx) => {
        if (!(await projects.lock(project.id, tx))) return false;
        if (!(await projects.addSubscription(project.id, merge.into, tx))) return false;
        await projects.update(project.id, {}, tx);
        await audit.record(
          {
            organizationId: project.organizationId,
            actor: CATALOG_ACTOR,
            action: 'subscription.update',
            resourceType: 'subscription',
            resourceId: project.id,
            resourceName: project.name,
            changes: {
              added: [merge.into],
              removed: [],
              merged: { from: merge.from, into: merge.into, text: merge.text, cve_id: merge.cveId },
            },
          },
          tx,
        );
        return true;
      });
      if (added) moved++;
    }
    return moved;
  }
}
