/**
 * The facts behind "why is this CVE (not) in this project" (`domain/project-match.ts`), read in one
 * statement: the CVE's state, publication and keys; each provider's statement reduced to what gives
 * keys (its keys, CPEs and affected vendor/product text); the recorded changes that gave or took keys;
 * and, for each active project asked about, how many keys it subscribes to and the subscribed keys that
 * match or come near the CVE's (same vendor, same product name, same letters of a vendor's name).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import type { KeywordField } from '../domain/keywords.ts';
import type { VersionChange } from '../domain/inventory.ts';
import { PRODUCT_SEPARATOR } from '../domain/cpe.ts';
import type { KeyChange, MatchFacts, StatementKeys } from '../domain/project-match.ts';
import type { VendorProvenance } from '../domain/vendor-provenance.ts';

/** At most this many subscribed keys of one project are read (matching first, then near ones). */
const CANDIDATES_PER_PROJECT = 60;

interface FactsRow {
  cve_id: string;
  state: string;
  created_at: Date;
  vendors: string[];
  vendor_sources: VendorProvenance | null;
  statements: { provider: string; vendors: unknown; cpes: unknown; affected: unknown }[];
  changes: { at: string; entries: { type?: unknown; details?: unknown }[] | null }[];
  projects: {
    name: string;
    count: number;
    candidates: { key: string; since: string }[];
    keywords_count: number;
    keywords: { keyword: string; fields: KeywordField[]; watched_since: string; matches_since: string }[];
    components: {
      inventory: string;
      position: number;
      name: string;
      version: string | null;
      purl: string | null;
      found_at: string;
    }[];
    resolved: { inventory: string; resolved_at: string; resolution: unknown }[];
  }[];
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export class ProjectMatchRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The facts for one CVE and the organization's active projects (or only `projectName`); undefined
   * when the catalog does not list the CVE.
   */
  async facts(
    cveId: string,
    organizationId: string,
    projectName: string | undefined,
  ): Promise<MatchFacts | undefined> {
    const sep = PRODUCT_SEPARATOR;
    const { rows } = await sql<FactsRow>`
      WITH c AS (SELECT cve_id, state, created_at, vendors, vendor_sources FROM cve WHERE cve_id = ${cveId}),
      parts AS (
        SELECT split_part(k, ${sep}, 1) AS vendor,
               CASE WHEN strpos(k, ${sep}) > 0 THEN split_part(k, ${sep}, 2) END AS product
          FROM c, unnest(c.vendors) AS k
      )
      SELECT c.cve_id, c.state, c.created_at, c.vendors, c.vendor_sources,
        (SELECT coalesce(jsonb_agg(jsonb_build_object(
                  'provider', s.provider,
                  'vendors', s.data->'vendors',
                  'cpes', s.data->'cpes',
                  'affected', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                        'vendor', a->'vendor', 'product', a->'product', 'cpes', a->'cpes')), '[]'::jsonb)
                                 FROM jsonb_array_elements(CASE jsonb_typeof(s.data->'affected')
                                                           WHEN 'array' THEN s.data->'affected' ELSE '[]'::jsonb END) a)
                ) ORDER BY s.provider), '[]'::jsonb)
           FROM cve_source s WHERE s.cve_id = c.cve_id) AS statements,
        (SELECT coalesce(jsonb_agg(jsonb_build_object(
                  'at', ch.created_at,
                  'entries', (SELECT jsonb_agg(e) FROM jsonb_array_elements(ch.data) e
                               WHERE e->>'type' IN ('first_time', 'vendors'))
                ) ORDER BY ch.created_at, ch.seq), '[]'::jsonb)
           FROM cve_change ch
          WHERE ch.cve_id = c.cve_id AND ch.types && ARRAY['first_time', 'vendors']::text[]) AS changes,
        (SELECT coalesce(jsonb_agg(jsonb_build_object(
                  'name', p.name,
                  'count', (SELECT count(*) FROM project_subscription ps WHERE ps.project_id = p.id),
                  'keywords_count', (SELECT count(*) FROM project_keyword pk WHERE pk.project_id = p.id),
                  'keywords', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                 'keyword', pk.keyword, 'fields', ck.fields, 'watched_since', pk.created_at,
                                 'matches_since', ck.created_at) ORDER BY pk.keyword), '[]'::jsonb)
                                 FROM project_keyword pk
                                 JOIN cve_keyword ck ON ck.keyword = pk.keyword AND ck.cve_id = c.cve_id
                                WHERE pk.project_id = p.id),
                  'components', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                   'inventory', i.name, 'position', ic.position, 'name', ic.name,
                                   'version', ic.version, 'purl', ic.purl, 'found_at', f.found_at)
                                   ORDER BY i.name, ic.position), '[]'::jsonb)
                                   FROM inventory i
                                   JOIN inventory_component ic ON ic.inventory_id = i.id
                                   JOIN inventory_finding f ON f.component_id = ic.id AND f.cve_id = c.cve_id
                                  WHERE i.project_id = p.id),
                  'resolved', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                 'inventory', i.name, 'resolved_at', x.resolved_at, 'resolution', x.resolution)
                                 ORDER BY i.name), '[]'::jsonb)
                                 FROM inventory_cve x JOIN inventory i ON i.id = x.inventory_id
                                WHERE x.project_id = p.id AND x.cve_id = c.cve_id AND x.resolved_at IS NOT NULL),
                  'candidates', (SELECT coalesce(jsonb_agg(jsonb_build_object('key', x.vendor_key, 'since', x.created_at)
                                                 ORDER BY x.exact DESC, x.vendor_key), '[]'::jsonb)
                                   FROM (SELECT ps.vendor_key, ps.created_at, ps.vendor_key = ANY(c.vendors) AS exact
                                           FROM project_subscription ps
                                          WHERE ps.project_id = p.id
                                            AND (ps.vendor_key = ANY(c.vendors)
                                                 OR split_part(ps.vendor_key, ${sep}, 1) IN (SELECT vendor FROM parts)
                                                 OR (strpos(ps.vendor_key, ${sep}) > 0
                                                     AND split_part(ps.vendor_key, ${sep}, 2) IN (SELECT product FROM parts WHERE product IS NOT NULL))
                                                 OR regexp_replace(split_part(ps.vendor_key, ${sep}, 1), '[^a-z0-9]', '', 'g')
                                                    IN (SELECT regexp_replace(vendor, '[^a-z0-9]', '', 'g') FROM parts))
                                          ORDER BY exact DESC, ps.vendor_key
                                          LIMIT ${CANDIDATES_PER_PROJECT}) x)
                ) ORDER BY p.name), '[]'::jsonb)
           FROM project p
          WHERE p.organization_id = ${organizationId} AND p.active
            AND (${projectName ?? null}::text IS NULL OR p.name = ${projectName ?? null}::text)) AS projects
      FROM c`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      cve: {
        cveId: row.cve_id,
        state: row.state,
        published: row.created_at,
        vendors: row.vendors,
        vendorSources: row.vendor_sources,
      },
      statements: row.statements.map((s): StatementKeys => ({
        provider: s.provider,
        vendors: strings(s.vendors),
        cpes: strings(s.cpes),
        affected: (Array.isArray(s.affected) ? (s.affected as Record<string, unknown>[]) : []).map((a) => ({
          vendor: text(a.vendor),
          product: text(a.product),
          cpes: strings(a.cpes),
        })),
      })),
      keyChanges: row.changes.map((c): KeyChange => {
        const added = new Set<string>();
        const removed = new Set<string>();
        for (const e of c.entries ?? []) {
          if (e.type === 'first_time') strings(e.details).forEach((k) => added.add(k));
          if (e.type === 'vendors') {
            const d = (e.details ?? {}) as { added?: unknown; removed?: unknown };
            strings(d.added).forEach((k) => added.add(k));
            strings(d.removed).forEach((k) => removed.add(k));
          }
        }
        return { at: new Date(c.at), added: [...added], removed: [...removed] };
      }),
      projects: row.projects.map((p) => ({
        name: p.name,
        subscriptionsCount: Number(p.count),
        candidates: p.candidates.map((k) => ({ key: k.key, since: new Date(k.since) })),
        keywordsCount: Number(p.keywords_count),
        keywords: p.keywords.map((k) => ({
          keyword: k.keyword,
          fields: k.fields,
          watchedSince: new Date(k.watched_since),
          matchesSince: new Date(k.matches_since),
        })),
        components: p.components.map((k) => ({
          inventory: k.inventory,
          position: Number(k.position),
          name: k.name,
          version: k.version,
          purl: k.purl,
          foundAt: new Date(k.found_at),
        })),
        resolvedBy: p.resolved.map((r) => ({
          inventory: r.inventory,
          resolvedAt: new Date(r.resolved_at),
          changes: ((r.resolution as { changes?: VersionChange[] } | null)?.changes ?? []).filter(
            (c) => c && typeof c.name === 'string',
          ),
        })),
      })),
    };
  }
}
