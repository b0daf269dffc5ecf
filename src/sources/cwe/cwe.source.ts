/** MITRE CWE catalog: the CSV downloads (`CWE-ID,Name,…,Description`) or the XML catalog. */
import { parse as parseCsv } from 'csv-parse';
import { SaxesParser } from 'saxes';
import { normalizeCweId } from '../../domain/cve-id.ts';
import { unreadableRest, type ImportItem, type Source } from '../source.ts';
import { chain, type InputFile } from '../input.ts';

async function* parseCsvFile(file: InputFile): AsyncGenerator<ImportItem> {
  const stream = await file.open();
  let row = 1;
  for await (const record of chain(
    stream,
    parseCsv({ columns: true, bom: true, relax_column_count: true }),
  ) as AsyncIterable<Record<string, string>>) {
    row++;
    const position = `${file.name}:${row}`;
    const cweId = normalizeCweId(record['CWE-ID']);
    if (!cweId || !record.Name) {
      yield { kind: 'skip', position, reason: 'row without a CWE-ID and Name' };
      continue;
    }
    yield {
      kind: 'weakness',
      position,
      weakness: { cweId, name: record.Name, description: record.Description ?? '' },
    };
  }
}

async function* parseXmlFile(file: InputFile): AsyncGenerator<ImportItem> {
  const stream = await file.open();
  const parser = new SaxesParser();
  const ready: ImportItem[] = [];
  let current: { id: string; name: string; description: string } | undefined;
  let inDescription = false;
  // Element names from the root down: only a Description directly under Weakness is the weakness's
  // own (mitigations and examples have Descriptions of their own).
  const open: string[] = [];
  parser.on('opentag', (tag) => {
    open.push(tag.name);
    if (tag.name === 'Weakness') {
      current = {
        id: String(tag.attributes.ID ?? ''),
        name: String(tag.attributes.Name ?? ''),
        description: '',
      };
    } else if (tag.name === 'Description' && current && open.at(-2) === 'Weakness') {
      inDescription = true;
    }
  });
  parser.on('text', (text) => {
    if (inDescription && current) current.description += text;
  });
  parser.on('closetag', (tag) => {
    open.pop();
    if (tag.name === 'Description') inDescription = false;
    if (tag.name === 'Weakness' && current) {
      const cweId = normalizeCweId(current.id);
      const position = `${file.name}:${parser.line}`;
      ready.push(
        cweId && current.name
          ? {
              kind: 'weakness',
              position,
              weakness: { cweId, name: current.name, description: current.description.trim() },
            }
          : { kind: 'skip', position, reason: 'Weakness element without ID and Name' },
      );
      current = undefined;
    }
  });
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    parser.write(chunk);
    yield* ready.splice(0);
  }
  parser.close();
  yield* ready.splice(0);
}

export const cweSource: Source = {
  name: 'cwe',
  accept: (name) => /\.(csv|xml)$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    try {
      yield* /\.xml$/i.test(file.logicalName) ? parseXmlFile(file) : parseCsvFile(file);
    } catch (err) {
      yield unreadableRest(file.name, err);
    }
  },
};
