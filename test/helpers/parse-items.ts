/**
 * Prints, one JSON line each, the items a source parses from an input: `node --import tsx
 * test/helpers/parse-items.ts <source> <path>`. Run as a child process by tests whose input could
 * crash or hang the parser, so that such a bug fails one test instead of the whole test run.
 */
import { inputFiles } from '../../src/sources/input.ts';
import { sources } from '../../src/sources/index.ts';
import { isSourceName } from '../../src/sources/source.ts';

const [name, target] = process.argv.slice(2);
if (!name || !target || !isSourceName(name)) {
  console.error('usage: parse-items.ts <source> <path>');
  process.exit(2);
}
const source = sources[name];
for await (const file of inputFiles(target, { accept: source.accept })) {
  for await (const item of source.parse(file)) {
    const line =
      item.kind === 'cve'
        ? { kind: item.kind, position: item.position, cveId: item.cveId }
        : item.kind === 'skip'
          ? { kind: item.kind, position: item.position, reason: item.reason }
          : item.kind === 'weakness'
            ? { kind: item.kind, position: item.position, cweId: item.weakness.cweId }
            : { kind: item.kind, position: item.position, takenAt: item.takenAt };
    console.log(JSON.stringify(line));
  }
}
