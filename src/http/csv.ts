/**
 * CSV downloads (docs/api-v2.md: reports and CVE searches): a header row, then the rows streamed through
 * csv-stringify as they are read, never one string in memory. Any list that offers `format=csv`
 * describes its columns once (`CsvColumn`) and answers with `sendCsv(reply, name, csvStream(...))`.
 */
import { pipeline, Readable } from 'node:stream';
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

/**
 * The CSV text of `rows` under a header row, as a stream (UTF-8, no BOM, CRLF line ends as RFC 4180;
 * a cell with a comma, a quote or any line break is quoted).
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
    // csv-stringify quotes a cell holding the record delimiter (CRLF here), not a lone LF or CR:
    // without this a description with a line break and no comma splits its row.
    quoted_match: /[\r\n]/,
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
