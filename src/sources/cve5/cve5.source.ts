/** CVE 5 inputs: one record per `.json` file (cvelistV5 layout or loose), or JSON Lines. */
import { lines, readAll } from '../input.ts';
import { errorReason, type ImportItem, type Source } from '../source.ts';
import { cve5Item } from './cve5.parse.ts';

export const cve5Source: Source = {
  name: 'cve5',
  accept: (name) => /^CVE-\d{4}-\d+\.json$/i.test(name) || /\.jsonl$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    const stream = await file.open();
    if (/\.jsonl$/i.test(file.logicalName)) {
      let last = 0;
      try {
        for await (const { line, number } of lines(stream)) {
          last = number;
          if (!line.trim()) continue;
          const position = `${file.name}:${number}`;
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch (err) {
            yield { kind: 'skip', position, reason: errorReason(err) };
            continue;
          }
          yield cve5Item(value, position);
        }
      } catch (err) {
        // A truncated or corrupt archive: keep what was read, report the rest.
        yield {
          kind: 'skip',
          position: `${file.name}:${last + 1}`,
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
    // A bulk file may also hold an array of records.
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) yield cve5Item(v, `${file.name}[${i}]`);
    } else {
      yield cve5Item(value, file.name);
    }
  },
};
