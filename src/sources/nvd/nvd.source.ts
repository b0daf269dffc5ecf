/**
 * NVD inputs. A file is told apart by its first bytes: a 1.1 feed (`CVE_Items`), an API 2.0 response
 * page (`vulnerabilities`), or a single record of either layout. Arrays are streamed element by
 * element (json-array.ts), so an 80 MB feed never sits in memory whole.
 */
import { peek, readAll } from '../input.ts';
import { errorReason, jsonArrayItems, type ImportItem, type Source } from '../source.ts';
import { parseNvd11, parseNvd20 } from './nvd.parse.ts';
import type { SourceRecord } from '../../domain/cve.ts';

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
      const parse = layout === 'CVE_Items' ? parseNvd11 : parseAny;
      yield* jsonArrayItems(file, stream, layout, (value, position) => item(parse, value, position));
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
