/**
 * A realistic inventory of 1,000 components (or `size`: every part but the 20 heaviest products scaled) drawn from the catalog's own names and versions (real
 * rows only, ids below CVE-9000; chosen in md5 order so a rebuilt catalog gives the same list):
 * CNA vendor/product objects at a version a CNA lists, CPE names at NVD range ends, the products with
 * the most CVEs, package URLs from CNA package names, and components the catalog does not know.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';

const rowsOf = async <T>(db: Kysely<DB>, query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;

export async function chooseInventory(db: Kysely<DB>, size = 1000) {
  const scale = (n: number) => Math.round((n * size) / 1000);
  const cna = await rowsOf(
    db,
    sql<{ vendor: string; product: string; version: string }>`
      SELECT vendor, product, version FROM (
        SELECT DISTINCT ON (a->>'vendor', a->>'product') a->>'vendor' AS vendor, a->>'product' AS product, v->>'version' AS version
        FROM cve_source s
        CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(s.data->'affected') WHEN 'array' THEN s.data->'affected' ELSE '[]' END) a
        CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(a->'versions') WHEN 'array' THEN a->'versions' ELSE '[]' END) v
        WHERE s.provider = 'mitre' AND s.cve_id < 'CVE-9000' AND a->>'vendor' <> '' AND a->>'product' <> ''
          AND a->>'vendor' NOT IN ('n/a', 'unknown') AND v->>'version' ~ '^[0-9]' AND v->>'status' = 'affected'
        ORDER BY a->>'vendor', a->>'product', md5(s.cve_id || (v->>'version'))
      ) x ORDER BY md5(vendor || product) LIMIT ${scale(700)}`,
  );
  const nvd = await rowsOf(
    db,
    sql<{ criteria: string; version: string | null }>`
      SELECT criteria, version FROM (
        SELECT DISTINCT ON (split_part(m->>'criteria', ':', 4), split_part(m->>'criteria', ':', 5))
               m->>'criteria' AS criteria,
               coalesce(m->>'versionEndIncluding', m->>'versionEndExcluding', m->>'versionStartIncluding') AS version
        FROM cve c
        CROSS JOIN LATERAL jsonb_array_elements(c.nvd_configurations) conf
        CROSS JOIN LATERAL jsonb_array_elements(conf->'nodes') n
        CROSS JOIN LATERAL jsonb_array_elements(n->'cpeMatch') m
        WHERE c.cve_id < 'CVE-9000' AND jsonb_typeof(c.nvd_configurations) = 'array' AND (m->>'vulnerable')::boolean
        ORDER BY split_part(m->>'criteria', ':', 4), split_part(m->>'criteria', ':', 5), md5(c.cve_id)
      ) x ORDER BY md5(criteria) LIMIT ${scale(230)}`,
  );
  const heavy = await rowsOf(
    db,
    sql<{ vendor_key: string; n: number }>`
      SELECT vendor_key, count(*)::int AS n FROM cve_vendor WHERE vendor_key LIKE '%$PRODUCT$%'
      GROUP BY vendor_key ORDER BY n DESC LIMIT 20`,
  );
  const packages = await rowsOf(
    db,
    sql<{ name: string; url: string | null; version: string }>`
      SELECT DISTINCT ON (a->>'packageName') a->>'packageName' AS name, a->>'collectionURL' AS url, v->>'version' AS version
      FROM cve_source s
      CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(s.data->'affected') WHEN 'array' THEN s.data->'affected' ELSE '[]' END) a
      CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(a->'versions') WHEN 'array' THEN a->'versions' ELSE '[]' END) v
      WHERE s.provider = 'mitre' AND s.cve_id < 'CVE-9000' AND a->>'packageName' <> '' AND v->>'version' ~ '^[0-9]'
      ORDER BY a->>'packageName', md5(s.cve_id)`,
  );

  const components: unknown[] = [];
  const heavyComponents = heavy.map((h) => {
    const [vendor, product] = h.vendor_key.split('$PRODUCT$') as [string, string];
    return { vendor, product, version: '2.0' };
  });
  const purls: string[] = [];
  for (const p of packages) {
    const url = p.url ?? '';
    const v = encodeURIComponent(p.version);
    if (/npmjs/.test(url))
      purls.push(`pkg:npm/${p.name.startsWith('@') ? p.name.replace('@', '%40') : p.name}@${v}`);
    else if (/pypi/.test(url)) purls.push(`pkg:pypi/${p.name}@${v}`);
    else if (/maven/.test(url) && p.name.includes(':'))
      purls.push(`pkg:maven/${p.name.replace(':', '/')}@${v}`);
    else if (/github\.com\/[^/]+\/[^/]+/.test(url)) {
      const [, owner, repo] = /github\.com\/([^/]+)\/([^/#?]+)/.exec(url)!;
      purls.push(`pkg:github/${owner}/${repo!.replace(/\.git$/, '')}@${v}`);
    } else if (/redhat|rpm/.test(url)) purls.push(`pkg:rpm/redhat/${p.name}@${v}`);
  }
  const nvdComponents = nvd.map((r) => {
    const fields = r.criteria.split(/(?<!\\):/);
    if ((fields[5] === '*' || fields[5] === '-') && r.version) fields[5] = r.version;
    return fields.join(':');
  });
  const unknown = Array.from({ length: scale(50) }, (_, i) =>
    i % 2
      ? { vendor: `nonexistent-vendor-${i}`, product: 'widget', version: '1.0' }
      : `pkg:npm/not-a-real-package-${i}@1.0.0`,
  );
  const usedPurls = purls.slice(0, scale(90));
  const rest = size - heavyComponents.length - nvdComponents.length - usedPurls.length - unknown.length;
  const cnaComponents = cna
    .slice(0, rest)
    .map((r) => ({ vendor: r.vendor, product: r.product, version: r.version }));
  components.push(...heavyComponents, ...nvdComponents, ...usedPurls, ...cnaComponents, ...unknown);
  // Interleaved, as an inventory export lists components, not grouped by how they were chosen.
  const shuffled = components
    .map((c, i) => ({ c, k: (i * 7919) % 1009, i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.c);

  const heavySet = new Set<unknown>(heavyComponents);
  return {
    components: shuffled,
    /** The same list without the 20 products with the most CVEs (980 components): how the time depends on them. */
    withoutHeaviest: shuffled.filter((c) => !heavySet.has(c)),
    description: [
      `${shuffled.length} components, interleaved:`,
      `${heavyComponents.length} \`{vendor, product, version: "2.0"}\` objects of the product keys with the most CVEs (${heavy
        .slice(0, 5)
        .map((h) => `\`${h.vendor_key}\` ${h.n.toLocaleString('en-US')}`)
        .join(', ')}, …)`,
      `${nvdComponents.length} CPE 2.3 names of vulnerable NVD criteria, one per product, at the criterion's version or a range end (end including, end excluding or start)`,
      `${usedPurls.length} package URLs (npm, pypi, maven, github, rpm) from CNA \`packageName\`/\`collectionURL\` at a version the CNA lists`,
      `${cnaComponents.length} \`{vendor, product, version}\` objects as CNAs write them, at a version the CNA lists as affected`,
      `${unknown.length} components the catalog does not know (${scale(25)} objects, the rest npm purls)`,
    ],
  };
}
