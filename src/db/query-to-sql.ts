/**
 * Compiles a parsed `q` query (src/domain/query-language.ts) into a where-expression over table
 * `cve`, using the GIN indexes where they matter: vendor, product, CWE and project terms become array
 * containment/overlap on `vendors`/`weaknesses`, bare words and quoted phrases a substring match on
 * the id, title, description and vendor and product names (cve-search.ts, as the lists' `search`).
 *
 * Project names are resolved before compiling (`resolveQueryProjects`), so compiling is synchronous
 * and the SQL holds the subscribed vendor keys themselves.
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { PRODUCT_SEPARATOR } from '../domain/cpe.ts';
import { validationError } from '../domain/errors.ts';
import {
  collectProjectNames,
  type DateRange,
  type QueryNode,
  type QueryOperator,
  type TermNode,
} from '../domain/query-language.ts';
import type { DB } from './schema.ts';
import { containsPattern, textContains } from './cve-search.ts';

export interface CveQueryContext {
  /** The subscribed vendor keys of each project the query names (see resolveQueryProjects). */
  projects: ReadonlyMap<string, readonly string[]>;
}

type CveExpressionBuilder = ExpressionBuilder<DB, 'cve'>;

/** The projects of one organization that a query names, with their subscribed vendor keys. */
export async function resolveQueryProjects(
  db: Kysely<DB>,
  organizationId: string,
  node: QueryNode,
): Promise<Map<string, string[]>> {
  const names = collectProjectNames(node);
  const projects = new Map<string, string[]>();
  if (names.length === 0) return projects;
  const rows = await db
    .selectFrom('project')
    .leftJoin('project_subscription', 'project_subscription.project_id', 'project.id')
    .select(['project.name', 'project_subscription.vendor_key'])
    .where('project.organization_id', '=', organizationId)
    .where('project.name', 'in', names)
    .orderBy('project_subscription.vendor_key')
    .execute();
  for (const row of rows) {
    const keys = projects.get(row.name) ?? [];
    if (row.vendor_key !== null) keys.push(row.vendor_key);
    projects.set(row.name, keys);
  }
  return projects;
}

/**
 * A query as the vendor keys it requires at its top level (`vendor=x` terms ANDed with the rest)
 * and the rest without them (undefined when nothing is left): a list requiring a vendor key can be
 * read through `cve_vendor` in order (see cve-list.repository.ts). Same CVEs as the whole query.
 */
export function splitRequiredVendors(node: QueryNode): { keys: string[]; rest: QueryNode | undefined } {
  const isRequired = (n: QueryNode) => n.kind === 'term' && n.field === 'vendor' && n.op === '=';
  const keyOf = (n: QueryNode) => (n.kind === 'term' ? String(n.value) : '');
  if (isRequired(node)) return { keys: [keyOf(node)], rest: undefined };
  if (node.kind !== 'and') return { keys: [], rest: node };
  const keys = [...new Set(node.children.filter(isRequired).map(keyOf))];
  const others = node.children.filter((c) => !isRequired(c));
  const rest =
    others.length === 0 ? undefined : others.length === 1 ? others[0] : { ...node, children: others };
  return { keys, rest };
}

/**
 * The where-expression of a query. Throws a `validation_error` for a project the context does not
 * know. A NULL score or title never matches `=`, `>`, `>=`, `<`, `<=` and always matches `!=`.
 */
export function compileCveQuery(
  node: QueryNode,
  eb: CveExpressionBuilder,
  context: CveQueryContext,
): Expression<SqlBool> {
  switch (node.kind) {
    case 'and':
      return eb.and(node.children.map((child) => compileCveQuery(child, eb, context)));
    case 'or':
      return eb.or(node.children.map((child) => compileCveQuery(child, eb, context)));
    case 'text':
      // A word finds what `search` finds for it; a quoted phrase is one piece of text, blanks included.
      return textContains(node.value);
    case 'term':
      return compileTerm(node, eb, context);
  }
}

function compileTerm(
  term: TermNode,
  eb: CveExpressionBuilder,
  context: CveQueryContext,
): Expression<SqlBool> {
  switch (term.field) {
    case 'cve':
      if (term.op === ':') return eb('cve.cve_id', 'like', containsPattern(term.value));
      return eb('cve.cve_id', term.op === '!=' ? '<>' : '=', term.value);
    case 'description':
    case 'title': {
      const column = term.field === 'title' ? 'cve.title' : 'cve.description';
      if (term.op === ':') return eb(column, 'ilike', containsPattern(term.value));
      return eb(column, term.op === '!=' ? 'is distinct from' : '=', term.value);
    }
    case 'vendor': {
      if (term.op === ':') {
        const names = eb
          .selectFrom('vendor')
          .select('vendor.name')
          .where('vendor.name', 'ilike', containsPattern(term.value));
        return overlaps(eb, sql`ARRAY(${names})`);
      }
      return negatedIf(eb, term.op === '!=', contains(eb, 'cve.vendors', term.value));
    }
    case 'product': {
      const keys = eb
        .selectFrom('product')
        .innerJoin('vendor', 'vendor.id', 'product.vendor_id')
        .select(sql<string>`vendor.name || ${PRODUCT_SEPARATOR} || product.name`.as('key'))
        .where(
          'product.name',
          term.op === ':' ? 'ilike' : '=',
          term.op === ':' ? containsPattern(term.value) : term.value,
        );
      return negatedIf(eb, term.op === '!=', overlaps(eb, sql`ARRAY(${keys})`));
    }
    case 'cwe': {
      if (term.op === ':') {
        const pattern = containsPattern(term.value);
        const ids = eb
          .selectFrom('weakness')
          .select('weakness.cwe_id')
          .where((w) => w.or([w('weakness.cwe_id', 'ilike', pattern), w('weakness.name', 'ilike', pattern)]));
        return sql<SqlBool>`${eb.ref('cve.weaknesses')} && ARRAY(${ids})`;
      }
      return negatedIf(eb, term.op === '!=', contains(eb, 'cve.weaknesses', term.value));
    }
    case 'cvss20':
    case 'cvss30':
    case 'cvss31':
    case 'cvss40':
    case 'epss': {
      const column = `cve.${term.field}` as const;
      if (term.op === ':') throw new Error(`operator ":" reached the compiler for ${term.field}`);
      return eb(column, term.op === '!=' ? 'is distinct from' : term.op, term.value);
    }
    case 'kev':
      return eb('cve.kev', '=', term.op === '!=' ? !term.value : term.value);
    case 'created':
    case 'updated':
      return compileDate(
        term.field === 'created' ? 'cve.created_at' : 'cve.updated_at',
        term.op,
        term.value,
        eb,
      );
    case 'project': {
      const keys = context.projects.get(term.value);
      if (!keys) throw validationError({ q: [`unknown project "${term.raw}" at position ${term.position}`] });
      // No subscriptions: the project has no CVEs.
      const matches = keys.length > 0 ? overlaps(eb, sql`${[...keys]}::text[]`) : eb.lit(false);
      return negatedIf(eb, term.op === '!=', matches);
    }
  }
}

/**
 * A date term. A calendar date is its whole UTC day [from, until): `>` means after that day, `<=`
 * up to its end, `=` within it. A relative date is an instant (from = until).
 */
function compileDate(
  column: 'cve.created_at' | 'cve.updated_at',
  op: QueryOperator,
  { from, until }: DateRange,
  eb: CveExpressionBuilder,
): Expression<SqlBool> {
  const instant = from.getTime() === until.getTime();
  const [start, end] = [timestamptz(from), timestamptz(until)];
  switch (op) {
    case '>=':
      return eb(column, '>=', start);
    case '>':
      return instant ? eb(column, '>', start) : eb(column, '>=', end);
    case '<':
      return eb(column, '<', start);
    case '<=':
      return instant ? eb(column, '<=', start) : eb(column, '<', end);
    case '=':
      return eb.and([eb(column, '>=', start), eb(column, '<', end)]);
    case '!=':
      return eb.or([eb(column, '<', start), eb(column, '>=', end)]);
    case ':':
      throw new Error(`operator ":" reached the compiler for ${column}`);
  }
}

/**
 * A timestamp parameter as ISO text. Not a Date: the embedded driver sends `toISOString()`, which
 * writes the end of 9999-12-31 as `+010000-01-01…`, text PostgreSQL rejects.
 */
function timestamptz(date: Date): Expression<Date> {
  return sql<Date>`${date.toISOString().replace(/^\+0*/, '')}::timestamptz`;
}

/** `column @> ARRAY[value]`: the array holds the value (GIN-indexed). */
function contains(
  eb: CveExpressionBuilder,
  column: 'cve.vendors' | 'cve.weaknesses',
  value: string,
): Expression<SqlBool> {
  return sql<SqlBool>`${eb.ref(column)} @> ARRAY[${value}]::text[]`;
}

/** `vendors && keys`: the CVE concerns any of the vendor keys (GIN-indexed). */
function overlaps(eb: CveExpressionBuilder, keys: Expression<unknown>): Expression<SqlBool> {
  return sql<SqlBool>`${eb.ref('cve.vendors')} && ${keys}`;
}

function negatedIf(
  eb: CveExpressionBuilder,
  negate: boolean,
  expression: Expression<SqlBool>,
): Expression<SqlBool> {
  return negate ? eb.not(expression) : expression;
}
