/**
 * Writes the alias table learned from the bundled sample (`data/sample/cve5-sample.jsonl.gz`) to
 * `data/sample/vendor-aliases.json.gz`: the table a new install maps CNA text with until it learns
 * from its own catalog (docs/catalog.md). `--check` compares instead and exits 1 when the file is out
 * of date (after a change of the learning rules: run it again and commit the result).
 */
import fs from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import path from 'node:path';
import { SAMPLE_DIR } from '../src/services/sample.service.ts';
import { aliasTableOfCve5File, SHIPPED_ALIASES } from '../src/services/vendor-alias.service.ts';

const text = JSON.stringify(await aliasTableOfCve5File(path.join(SAMPLE_DIR, 'cve5-sample.jsonl.gz')));
if (process.argv.includes('--check')) {
  const current = fs.existsSync(SHIPPED_ALIASES)
    ? gunzipSync(fs.readFileSync(SHIPPED_ALIASES)).toString()
    : '';
  if (current !== text) {
    console.error(
      `${SHIPPED_ALIASES} is out of date: run \`npm run learn-sample-aliases\` and commit the result`,
    );
    process.exit(1);
  }
  console.log('the shipped alias table is up to date');
} else {
  fs.writeFileSync(SHIPPED_ALIASES, gzipSync(text, { level: 9 }));
  console.log(`wrote ${SHIPPED_ALIASES} (${fs.statSync(SHIPPED_ALIASES).size} bytes)`);
}
