/**
 * NVD inputs. A file is told apart by its first bytes: a 1.1 feed (`CVE_Items`), an API 2.0 response
 * page (`vulnerabilities`), or a single record of either layout. Arrays are streamed element by
 * element, so an 80 MB feed never sits in memory whole.
 */
import type { Readable } from 'node:stream';
import StreamJson from 'stream-json';
import Pick from 'stream-json/filters/Pick.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { chain, peek, readAll } from '../input.ts';
import { errorReason, type ImportItem, type Source } from '../source.ts';
import { parseNvd11, parseNvd20 } from './nvd.parse.ts';
import type { SourceRecord } from '../../domain/cve.ts';

/** Streams the elements of the top-level array `key` of a JSON document. */
export async function* streamArrayOf(
  stream: Readable,
  key: string,
): AsyncGenerator<{ index: number; value: unknown }> {
  const elements = chain(
    stream,
    StreamJson.parser({ streamKeys: false, streamStrings: false, streamNumbers: false }),
    Pick.pick({ filter: key }),
    StreamArray.streamArray(),
  );
  for await (const { key: index, value } of elements as AsyncIterable<{ key: number; value: unknown }>) {
    yield { index, value };
  }
}

function item(parse: (v: unknown) => SourceRecord, value: unknown, position: string): ImportItem {
  try {
    const record = parse(value);
    return { kind: 'cve', cveId: record.cveId, position, records: [record], replaces: ['nvd'] };
  } catch (err) {
    return { kind: 'skip', position, reason: errorReason(err) };
  }
}

function parseAny(value: unknown): SourceRecord {
  const v = value as Record<string, unknown> | null;
  if (
    v &&
    typeof v === 'object' &&
    'cve' in v &&
    v.cve &&
    typeof v.cve === 'object' &&
    'CVE_data_meta' in v.cve
  ) {
    return parseNvd11(v);
  }
  if (v && typeof v === 'object' && 'cve' in v && !('id' in v)) return parseNvd20(v.cve);
  return parseNvd20(v);
}

export const nvdSource: Source = {
  name: 'nvd',
  accept: (name) => /\.json$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    const { head, stream } = await peek(await file.open());
    const layout = /"CVE_Items"\s*:/.test(head)
      ? 'CVE_Items'
      : /"vulnerabilities"\s*:/.test(head)
        ? 'vulnerabilities'
        : undefined;
    if (layout) {
      try {
        for await (const { index, value } of streamArrayOf(stream, layout)) {
          const position = `${file.name}:${layout}[${index}]`;
          yield layout === 'CVE_Items' ? item(parseNvd11, value, position) : item(parseAny, value, position);
        }
      } catch (err) {
        yield {
          kind: 'skip',
          position: file.name,
          reason: `the rest of the file is unreadable: ${errorReason(err)}`,
        };
      }
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(await readAll(stream));
    } catch (err) {
      yield { kind: 'skip', position: file.name, reason: errorReason(err) };
      return;
    }
    yield item(parseAny, value, file.name);
  },
};
