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
