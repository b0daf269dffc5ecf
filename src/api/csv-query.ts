/**
 * The API side of CSV downloads: the `format` query parameter of a list that can also be downloaded
 * as CSV, and its OpenAPI response. The CSV itself is written by http/csv.ts, which pages use too.
 */
import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** The `format` query parameter of a list that can also be downloaded as CSV. */
export const FormatQuery = {
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], {
      default: 'json',
      description:
        '`json` (a page) or `csv` (every matching item as a download, `page` and `page_size` ignored).',
    }),
  ),
};

/** The OpenAPI 200 response of such a list: the JSON page, or `text/csv`. */
export function jsonOrCsv(json: TSchema, csvDescription: string) {
  return {
    description: 'A page of the list (JSON), or with `format=csv` every matching item (CSV).',
    content: {
      'application/json': { schema: json },
      'text/csv': { schema: Type.String({ description: csvDescription }) },
    },
  };
}
