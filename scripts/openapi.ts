/**
 * Writes the OpenAPI document of API v2 (generated from the route schemas) to docs/openapi.json.
 * `--check` compares instead and exits 1 when the checked-in document is out of date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateOpenApi } from '../test/helpers/openapi.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/openapi.json');
const text = await generateOpenApi();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    console.error('docs/openapi.json is out of date: run `npm run openapi` and commit the result');
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date');
} else {
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
