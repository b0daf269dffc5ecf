/**
 * Where the server's main thread spends an endpoint's load, from a `--cpu-prof` profile of the whole
 * server process cut to the load's time window (V8's profile clock and process.hrtime are both the
 * monotonic clock on Linux). Also a CLI for a saved window:
 *   node --import tsx bench/api/profile.ts bench/.work/api-profiles/<endpoint>.cpuprofile
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  summarizeProfile,
  type Frame,
  type ProfileSummary,
  type Rule,
  type Share,
} from '../lib/cpuprofile.ts';

interface RawProfile {
  nodes: unknown[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Writes the samples of `profile` taken in [fromUs, toUs] to `out`, as a profile of its own; returns their number. */
export function cutProfile(profile: string, out: string, [fromUs, toUs]: [number, number]): number {
  const p = JSON.parse(fs.readFileSync(profile, 'utf8')) as RawProfile;
  const samples: number[] = [];
  const deltas: number[] = [];
  let t = p.startTime;
  let last = fromUs;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) return;
    samples.push(id);
    deltas.push(t - last);
    last = t;
  });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    JSON.stringify({ ...p, startTime: fromUs, endTime: last, samples, timeDeltas: deltas }),
  );
  return samples.length;
}

const inPackage =
  (...pkgs: string[]) =>
  (f: Frame) =>
    pkgs.some((p) => f.file.startsWith(`${p}/`));
const inFile =
  (file: string, ...fns: string[]) =>
  (f: Frame) =>
    f.file === file && (!fns.length || fns.includes(f.fn));
const pgDriver = inPackage('pg', 'pg-protocol', 'pg-types', 'pg-pool', 'pg-connection-string');
/** fastify's response serializer: fast-json-stringify's generated code and fastify's wrapper around it. */
const serialization = (f: Frame) =>
  inPackage('fast-json-stringify')(f) ||
  (f.file === 'fastify/lib/reply.js' && /serialize/i.test(f.fn)) ||
  f.fn === 'anonymous' ||
  f.fn === 'stringify';
const validation = (f: Frame) =>
  inPackage('ajv', 'fast-uri', 'typebox', '@fastify/ajv-compiler', 'fast-querystring')(f) ||
  f.fn === 'validate';

/** In priority order: a sample goes to the first rule matching any frame of its stack. */
const CATEGORIES: Rule[] = [
  { name: 'idle: waiting for requests or the database', match: (f) => f.fn === '(idle)' },
  { name: 'garbage collection', match: (f) => f.fn === '(garbage collector)' },
  {
    name: 'embedded database: PGlite (WASM)',
    match: (f) => f.file.startsWith('wasm://') || inPackage('@electric-sql/pglite')(f),
  },
  { name: 'JSON serialization of responses (fast-json-stringify)', match: serialization },
  { name: 'pg driver: protocol, result parsing', match: pgDriver },
  { name: 'kysely: query compilation', match: inPackage('kysely') },
  { name: 'request validation (ajv / typebox / querystring)', match: validation },
  {
    name: 'token check: parse, HMAC, compare',
    match: (f) =>
      inFile('src/services/token.service.ts')(f) ||
      inFile('src/domain/tokens.ts')(f) ||
      f.file.startsWith('node:internal/crypto'),
  },
  { name: 'rate limit (@fastify/rate-limit)', match: inPackage('@fastify/rate-limit') },
  { name: 'presenters and services (src/)', match: (f) => f.file.startsWith('src/') },
  { name: 'logging (pino)', match: inPackage('pino', 'sonic-boom') },
  {
    name: 'fastify: routing, hooks, reply',
    match: inPackage('fastify', 'find-my-way', 'avvio', 'light-my-request', '@fastify'),
  },
  {
    name: 'node: HTTP, sockets, streams, promises',
    match: (f) => f.file.startsWith('node:'),
  },
  { name: '(program): native code outside JS', match: (f) => f.fn === '(program)' },
];

/** Time with these on the stack, whoever called them (overlapping). */
const INCLUSIVE: Rule[] = [
  { name: 'pg driver', match: pgDriver },
  { name: 'kysely', match: inPackage('kysely') },
  { name: 'JSON serialization', match: serialization },
  { name: 'request validation', match: validation },
  { name: 'fastify', match: inPackage('fastify', 'find-my-way', '@fastify') },
  { name: 'src/ (all project code)', match: (f) => f.file.startsWith('src/') },
  { name: 'pagination links (pageEnvelope)', match: inFile('src/api/pagination.ts') },
  { name: 'PGlite', match: (f) => f.file.startsWith('wasm://') || inPackage('@electric-sql/pglite')(f) },
];

export function summarizeServerProfile(file: string): ProfileSummary {
  return summarizeProfile(file, { categories: CATEGORIES, inclusive: INCLUSIVE, top: 15 });
}

const ms = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 0 });
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const table = (title: string, rows: Share[]) =>
  [
    `| ${title} | ms | share |`,
    '| --- | ---: | ---: |',
    ...rows.map((r) => `| ${r.name.replace(/\|/g, '\\|')} | ${ms(r.ms)} | ${pct(r.share)} |`),
  ].join('\n');

export function renderServerProfile(summary: ProfileSummary): string {
  return [
    `Sampled: ${ms(summary.totalMs)} ms of the server's main thread (1 ms sampling).`,
    '',
    table('category (first match on the stack)', summary.categories),
    '',
    table('inclusive (overlapping)', summary.inclusive),
    '',
    table('top functions by self time', summary.self),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node --import tsx bench/api/profile.ts <file.cpuprofile>');
  console.log(renderServerProfile(summarizeServerProfile(file)));
}
