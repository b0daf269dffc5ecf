#!/usr/bin/env node
// Runs the compiled JavaScript of dist/ when it is current (built by `npm ci` and `npm run build`),
// else the TypeScript sources through tsx, which compiles them at every start (about a second).
import { compiledEntry } from './compiled.js';

const entry = compiledEntry();
if (entry) {
  await import(entry);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
