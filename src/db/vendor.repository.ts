/** Vendors and products of the catalog (names as in CPEs), listed by name. */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';
import { splitVendorKey } from '../domain/cpe.ts';

const like = (s: string) => `%${s.replace(/[%_\\]/g, '\\$&')}%`;

export class VendorRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private vendors(search: string | undefined) {
    let q = this.db.selectFrom('vendor');
    if (search) q = q.where('name', 'ilike', like(search));
    return q;
  }

  async countVendors(search?: string): Promise<number> {
    return (
      await this.vendors(search)
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  }

  listVendors(search: string | undefined, limit: number, offset: number) {
    return this.vendors(search)
      .select(['id', 'name', 'created_at', 'updated_at'])
      .orderBy('name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /**
   * Vendors by name from just after `after`, with their product and CVE counts: the CVE count is a
   * range of `cve_vendor`'s primary key (index only), the product count one of product's
   * (vendor_id, name) key; no scan of `cve`.
   */
  async browseVendors(search: string | undefined, after: string | undefined, limit: number) {
    const rows = await sql<{ name: string; product_count: number; cve_count: number }>`
      SELECT v.name,
        (SELECT count(*)::int FROM product p WHERE p.vendor_id = v.id) AS product_count,
        (SELECT count(*)::int FROM cve_vendor cv WHERE cv.vendor_key = v.name) AS cve_count
      FROM vendor v
      WHERE true${search ? sql` AND v.name ILIKE ${like(search)}` : sql``}${after !== undefined ? sql` AND v.name > ${after}` : sql``}
      ORDER BY v.name
      LIMIT ${limit}`.execute(this.db);
    return rows.rows;
  }

  /** A vendor's products by name from just after `after`, each with its CVE count (as browseVendors). */
  async browseProducts(
    vendor: { id: string; name: string },
    search: string | undefined,
    after: string | undefined,
    limit: number,
  ) {
    const rows = await sql<{ name: string; cve_count: number }>`
      SELECT p.name,
        (SELECT count(*)::int FROM cve_vendor cv WHERE cv.vendor_key = ${vendor.name} || '$PRODUCT$' || p.name) AS cve_count
      FROM product p
      WHERE p.vendor_id = ${vendor.id}${search ? sql` AND p.name ILIKE ${like(search)}` : sql``}${after !== undefined ? sql` AND p.name > ${after}` : sql``}
      ORDER BY p.name
      LIMIT ${limit}`.execute(this.db);
    return rows.rows;
  }

  /** How many CVEs carry the vendor key (`vendor` or `vendor$PRODUCT$product`): an index-only range. */
  async cveCount(key: string): Promise<number> {
    const row = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM cve_vendor WHERE vendor_key = ${key}`.execute(this.db);
    return row.rows[0]!.n;
  }

  /**
   * For each vendor key, how many CVEs carrying it were published or changed since `since`, counting
   * at most `cap` of each: one range of `cve_vendor`'s primary key (vendor_key, updated_at, cve_id)
   * per key, read from the index alone and stopped at the cap, so a vendor with thousands of recent
   * CVEs costs what one with `cap` does.
   */
  async recentCounts(keys: readonly string[], since: Date, cap: number): Promise<Map<string, number>> {
    if (!keys.length) return new Map();
    const rows = await sql<{ key: string; n: number }>`
      SELECT k.key,
        (SELECT count(*)::int FROM (
           SELECT 1 FROM cve_vendor cv WHERE cv.vendor_key = k.key AND cv.updated_at >= ${since}
            LIMIT ${cap}) x) AS n
      FROM unnest(${[...keys]}::text[]) AS k(key)`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.key, r.n]));
  }

  /** For each vendor key, how many CVEs carry it (index-only ranges, as cveCount). */
  async cveCounts(keys: readonly string[]): Promise<Map<string, number>> {
    if (!keys.length) return new Map();
    const rows = await sql<{ key: string; n: number }>`
      SELECT k.key, (SELECT count(*)::int FROM cve_vendor cv WHERE cv.vendor_key = k.key) AS n
      FROM unnest(${[...keys]}::text[]) AS k(key)`.execute(this.db);
    return new Map(rows.rows.map((r) => [r.key, r.n]));
  }

  /**
   * Vendors and products whose names start with `prefix` (lower case, as the catalog writes names),
   * for the global search's suggestions: a few of each, by name.
   */
  async suggest(prefix: string, limit: number) {
    const pattern = `${prefix.replace(/[%_\\]/g, '\\$&')}%`;
    const vendors = await sql<{ vendor: string }>`
      SELECT name AS vendor FROM vendor WHERE name LIKE ${pattern} ORDER BY name LIMIT ${limit}`.execute(
      this.db,
    );
    const products = await sql<{ vendor: string; product: string }>`
      SELECT v.name AS vendor, p.name AS product FROM product p JOIN vendor v ON v.id = p.vendor_id
       WHERE p.name LIKE ${pattern} ORDER BY p.name, v.name LIMIT ${limit}`.execute(this.db);
    return { vendors: vendors.rows.map((r) => r.vendor), products: products.rows };
  }

  /** Products named `name` (any vendor), at most `limit`, for the global search. */
  async productsNamed(name: string, limit: number) {
    const rows = await sql<{ vendor: string; product: string }>`
      SELECT v.name AS vendor, p.name AS product FROM product p JOIN vendor v ON v.id = p.vendor_id
       WHERE p.name = ${name} ORDER BY v.name LIMIT ${limit}`.execute(this.db);
    return rows.rows;
  }

  findVendor(name: string) {
    return this.db
      .selectFrom('vendor')
      .select(['id', 'name', 'created_at', 'updated_at'])
      .where('name', '=', name)
      .executeTakeFirst();
  }

  private products(vendorId: string, search: string | undefined) {
    let q = this.db.selectFrom('product').where('vendor_id', '=', vendorId);
    if (search) q = q.where('name', 'ilike', like(search));
    return q;
  }

  async countProducts(vendorId: string, search?: string): Promise<number> {
    return (
      await this.products(vendorId, search)
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  }

  listProducts(vendorId: string, search: string | undefined, limit: number, offset: number) {
    return this.products(vendorId, search)
      .select(['id', 'name', 'created_at', 'updated_at'])
      .orderBy('name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findProduct(vendorId: string, name: string) {
    return this.db
      .selectFrom('product')
      .select(['id', 'name', 'created_at', 'updated_at'])
      .where('vendor_id', '=', vendorId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  /** Every product name of a vendor, sorted (OpenCVE 1.5's vendor detail lists them all). */
  async productNames(vendorId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('product')
      .select('name')
      .where('vendor_id', '=', vendorId)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  /** Products of every vendor with their vendor's name, by product name then vendor name. */
  listAllProducts(search: string | undefined, limit: number, offset: number) {
    let q = this.db.selectFrom('product as p').innerJoin('vendor as v', 'v.id', 'p.vendor_id');
    if (search) q = q.where('p.name', 'ilike', like(search));
    return q
      .select(['p.name', 'v.name as vendor_name'])
      .orderBy('p.name')
      .orderBy('v.name')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** Which of these vendor keys exist in the catalog (`vendor` or `vendor$PRODUCT$product`). */
  async existingKeys(keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await sql<{ key: string }>`
      SELECT v.name AS key FROM vendor v WHERE v.name = ANY(${keys}::text[])
      UNION ALL
      SELECT v.name || '$PRODUCT$' || p.name FROM product p JOIN vendor v ON v.id = p.vendor_id
       WHERE v.name || '$PRODUCT$' || p.name = ANY(${keys}::text[])`.execute(this.db);
    return new Set(rows.rows.map((r) => r.key));
  }

  /**
   * The known name most like each of `names` (trigram similarity, as `pg_trgm` measures it, at least
   * 0.3): a vendor name for a vendor, a vendor key for a vendor key (the nearest product of that
   * vendor). Names with nothing near are left out. For error messages: one query per name.
   */
  async nearest(names: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const name of new Set(names)) {
      const { vendor, product } = splitVendorKey(name);
      const row =
        product === undefined
          ? await sql<{ name: string }>`
              SELECT name FROM vendor WHERE similarity(name, ${vendor}) >= 0.3
               ORDER BY similarity(name, ${vendor}) DESC, name LIMIT 1`.execute(this.db)
          : await sql<{ name: string }>`
              SELECT v.name || '$PRODUCT$' || p.name AS name
                FROM product p JOIN vendor v ON v.id = p.vendor_id
               WHERE v.name = ${vendor} AND similarity(p.name, ${product}) >= 0.3
               ORDER BY similarity(p.name, ${product}) DESC, p.name LIMIT 1`.execute(this.db);
      if (row.rows[0]) found.set(name, row.rows[0].name);
    }
    return found;
  }
}
