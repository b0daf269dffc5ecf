/**
 * Schema validation failures in words a person understands: one sentence per problem, naming the
 * field and what it accepts (the allowed values, the range, the rule behind a pattern), keyed by
 * field as the error envelope's `details`. The validator's own lines ("must be equal to constant",
 * a regular expression) never reach a client.
 */

/** A validator error as Ajv reports it with `verbose: true` (the failing schema and its parent). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: Schema;
  /** The value that failed (with `verbose: true`). */
  data?: unknown;
}

interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  [CHOICE_KEY]?: boolean;
}

const CHOICE_KEY = 'x-choice';

/**
 * Marks a union of constants whose failure reads as OpenCVE (Django REST framework) words a bad
 * choice: `"admin" is not a valid choice.`, then the valid values (`It must be one of: "owner",
 * "member".`) (`Type.Union(literals, CHOICE)`). Unmarked unions name the values they accept.
 */
export const CHOICE = { [CHOICE_KEY]: true } as const;

const PATTERN_RULES = new Map<string, string>();

/**
 * A `pattern` with the rule a person reads when a value breaks it, stated beside the schema:
 * `Type.String({ pattern: ruled('^CWE-\\d{1,6}$', 'a CWE id such as CWE-79') })`. The rule completes
 * "<field> must be …".
 */
export function ruled(pattern: string, rule: string): string {
  PATTERN_RULES.set(pattern, rule);
  return pattern;
}

/** A CVE id in a path or a body (any case in a path is read as upper case by the route). */
export const CVE_ID_RULE = ruled('^CVE-\\d{4}-\\d{4,}$', 'a CVE id such as CVE-2024-3094');

/** A CVE id in a path that takes any case (`cve-2024-3094`), as API v1 and `q` do; the route upper-cases it. */
export const CVE_ID_ANY_CASE_RULE = ruled('^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$', 'a CVE id such as CVE-2024-3094');

/** The rule stated for a pattern, if any (tests check that every pattern of the API has one). */
export const patternRule = (pattern: string) => PATTERN_RULES.get(pattern);

const FORMATS: Record<string, string> = {
  uuid: 'a UUID',
  'date-time': 'an ISO 8601 date-time such as 2024-03-29T16:51:12Z',
  date: 'a date such as 2024-03-29',
  email: 'an email address',
  uri: 'an absolute URL',
};

const TYPES: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

const quote = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Every value a union of constants allows (null included), or undefined when a branch is not a constant. */
function allowedValues(schema: Schema): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  if (schema.enum) return schema.enum;
  if (schema.type === 'null') return [null];
  const branches = schema.anyOf ?? schema.oneOf;
  if (!branches) return undefined;
  const values: unknown[] = [];
  for (const branch of branches) {
    const more = allowedValues(branch);
    if (!more) return undefined;
    values.push(...more);
  }
  return values;
}

/** What a schema accepts, as the end of "<field> must be …". */
function accepted(schema: Schema): string {
  const values = allowedValues(schema);
  if (values) return oneOf(values);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    // The constants of every branch in one list, then the other kinds ("… or a whole number").
    const constants = branches.flatMap((b) => allowedValues(b) ?? []);
    const others = branches.filter((b) => !allowedValues(b)).map(accepted);
    return [...(constants.length ? [oneOf(constants)] : []), ...new Set(others)].join(' or ');
  }
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  if (schema.pattern && PATTERN_RULES.has(schema.pattern)) return PATTERN_RULES.get(schema.pattern)!;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return (type && TYPES[type]) ?? 'a valid value';
}

function oneOf(values: unknown[]): string {
  const named = values.filter((v) => v !== null).map(quote);
  const orNull = values.includes(null) ? ' (or null)' : '';
  return named.length === 1 ? `${named[0]}${orNull}` : `one of: ${named.join(', ')}${orNull}`;
}

const LIMIT_WORDS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
};

/** "a whole number from 1 to 100" when the schema has both bounds, else "at most 100". */
function bounds(keyword: string, limit: unknown, schema: Schema | undefined): string {
  const { minimum, maximum } = schema ?? {};
  if (minimum !== undefined && maximum !== undefined)
    return `${schema?.type === 'integer' ? 'a whole number' : 'a number'} from ${minimum} to ${maximum}`;
  return `${LIMIT_WORDS[keyword] ?? keyword} ${String(limit)}`;
}

const choiceText = (value: unknown) =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

/** OpenCVE's sentence first (its clients read the same start), then the values that are valid. */
const badChoice = (value: unknown, schema: Schema) =>
  `"${choiceText(value)}" is not a valid choice. It must be ${accepted(schema)}.`;

const plural = (n: unknown, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

/** The sentence for one validator error about `field` (after unions were folded into one error). */
function sentence(error: SchemaError, field: string): string {
  const p = error.params;
  const parent = error.parentSchema;
  switch (error.keyword) {
    case 'anyOf':
    case 'oneOf':
      if (parent?.[CHOICE_KEY]) return badChoice(error.data, parent);
      return `${field} must be ${parent ? accepted(parent) : 'a valid value'}`;
    case 'const':
      return `${field} must be ${quote(p.allowedValue)}`;
    case 'enum':
      if (parent?.[CHOICE_KEY]) return badChoice(error.data, parent);
      return `${field} must be ${oneOf((p.allowedValues as unknown[] | undefined) ?? [])}`;
    case 'type':
      return `${field} must be ${TYPES[String(p.type).split(',')[0]!] ?? String(p.type)}`;
    case 'required':
      return `${field} is required`;
    case 'additionalProperties': {
      const known = Object.keys(parent?.properties ?? {});
      return known.length
        ? `${field} is not a known field; the known fields are ${known.join(', ')}`
        : `${field} is not a known field`;
    }
    case 'pattern': {
      const rule = PATTERN_RULES.get(String(p.pattern));
      return rule ? `${field} must be ${rule}` : `${field} is not in the expected form`;
    }
    case 'format':
      return `${field} must be ${FORMATS[String(p.format)] ?? `in the ${String(p.format)} format`}`;
    case 'minLength':
      return p.limit === 1
        ? `${field} must not be empty`
        : `${field} must be at least ${plural(p.limit, 'character')}`;
    case 'maxLength':
      return `${field} must be at most ${plural(p.limit, 'character')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${field} must be ${bounds(error.keyword, p.limit, parent)}`;
    case 'multipleOf':
      return `${field} must be a multiple of ${String(p.multipleOf)}`;
    case 'minItems':
      return p.limit === 1
        ? `${field} must not be empty`
        : `${field} must list at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `${field} must list at most ${plural(p.limit, 'item')}`;
    case 'uniqueItems':
      return `${field} must not list the same value twice`;
    case 'minProperties':
      return `${field} must have at least ${String(p.limit)} ${p.limit === 1 ? 'entry' : 'entries'}`;
    case 'maxProperties':
      return `${field} must have at most ${String(p.limit)} ${p.limit === 1 ? 'entry' : 'entries'}`;
    default:
      return `${field} is not valid (${error.message ?? error.keyword})`;
  }
}

const ROOT_NAMES: Record<string, string> = {
  body: 'the request body',
  querystring: 'the query string',
  params: 'the path',
  headers: 'the headers',
};

/**
 * The `details` of a validation error: `{field: [sentence, …]}`. A union (`anyOf`) is one problem,
 * said once with everything it allows, not one line per branch. `context` is where the errors are
 * (`body`, `querystring`…), the key of a problem with the whole of it.
 */
export function validationDetails(
  errors: readonly SchemaError[],
  context = 'body',
): Record<string, string[]> {
  // The outermost union of each failure stands for all of its branches' errors.
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.schemaPath)
    .sort((a, b) => a.length - b.length);
  const outermost = unions.filter((path, i) => !unions.slice(0, i).some((u) => path.startsWith(`${u}/`)));
  const kept = errors.filter((e) => !outermost.some((u) => e.schemaPath.startsWith(`${u}/`)));

  const details: Record<string, string[]> = {};
  for (const error of kept) {
    const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
    const property = (error.params.missingProperty ?? error.params.additionalProperty) as string | undefined;
    const field = [path, property].filter(Boolean).join('.');
    const text = sentence(error, field || (ROOT_NAMES[context] ?? context));
    const list = (details[field || context] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return details;
}
