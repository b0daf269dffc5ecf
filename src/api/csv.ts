/**
 * CSV downloads (docs/api-v2.md: reports and CVE searches): a header row, then the rows streamed through
 * csv-stringify as they are read, never one string in memory. Any list that offers `format=csv`
 * describes its columns once (`CsvColumn`) and answers with `sendCsv(reply, name, csvStream(...))`.
 */
import { pipeline, Readable } from 'node:stream';
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { stringify } from 'csv-stringify';

/** A cell: text, a number, or empty (null and undefined). Booleans are the caller's words (`true`). */
export type CsvCell = string | number | null | undefined;

/** One column: its header and how a row fills it. */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => CsvCell;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

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

/**
 * The CSV text of `rows` under a header row, as a stream (UTF-8, no BOM, CRLF line ends as RFC 4180).
 * A text cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR)
 * is prefixed with `'` (OWASP CSV injection); numbers are written as they are. A failure while
 * reading `rows` destroys the stream (the client sees a cut download, never a short file that looks
 * whole).
 */
export function csvStream<T>(
  columns: readonly CsvColumn<T>[],
  rows: AsyncIterable<T> | Iterable<T>,
): Readable {
  const stringifier = stringify({
    header: true,
    columns: columns.map((c) => c.header),
    escape_formulas: true,
    record_delimiter: 'windows',
  });
  async function* records() {
    for await (const row of rows) yield columns.map((c) => c.value(row) ?? null);
  }
  // Errors reach the consumer through the destroyed stringifier; the callback only ends the pipeline.
  return pipeline(Readable.from(records()), stringifier, () => {});
}

/** Sends a CSV download named `filename` (reduced to letters, digits, `.`, `_`, `-`). */
export function sendCsv(reply: FastifyReply, filename: string, body: Readable): FastifyReply {
  const safe = filename.replace(/[^A-Za-z0-9._-]+/g, '_');
  return reply
    .type(CSV_CONTENT_TYPE)
    .header('Content-Disposition', `attachment; filename="${safe}"`)
    .send(body);
}
