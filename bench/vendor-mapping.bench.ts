/**
 * Vendor mapping quality (issue 20): learn the alias table from the CVE 5 records published before a
 * cut date, then map the CNA container of each later record that has ADP (CISA-ADP) CPEs and compare
 * the keys with those CPEs' keys. Micro precision and recall for vendor keys and for product keys
 * (products over records whose CPEs name at most 10 products), beside the naive rule (lower case,
 * non-alphanumerics to `_`), and the worst misses. Writes bench/RESULTS-vendor-mapping.md
 * (bench/.work/RESULTS-vendor-mapping-<cut>.md with --cut).
 *
 *   npm run bench -- vendor-mapping [--cut 2024-08-01] [--min-support 2] [--min-share 0.7]
 *     [--product-min-support N] [--product-min-share S] [--no-nvd] [--nvd-teaches]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { lines } from '../src/sources/input.ts';
import {
  adpCpes,
  AliasLearner,
  cnaCpes,
  keysOfCpes,
  mapCnaKeys,
  type Cve5Containers,
  type MappedKeys,
  DEFAULT_THRESHOLD,
  vendorTextKey,
} from '../src/domain/vendor-aliases.ts';
import { vendorKey } from '../src/domain/cpe.ts';
import { corpusFile } from './import/corpus.ts';
import { nvdCpesBefore, nvdCpesFrom } from './vendor-mapping/nvd-vocabulary.ts';
import { rollingMap } from './vendor-mapping/rolling.ts';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { fixed, int, table } from './lib/markdown.ts';
import { benchDir, workDir } from './lib/paths.ts';

const DEFAULT_CUT = '2024-08-01';
const MAX_PRODUCTS = 10;

interface Cve5Record {
  cveMetadata?: { cveId?: string; datePublished?: string };
  containers?: Cve5Containers & { cna?: { affected?: { vendor?: unknown; product?: unknown }[] } };
}

/** A key without the punctuation CPE spellings of one name differ by (`d-link` and `dlink`). */
const unpunctuated = (key: string) => key.replace(/[-_.]/g, '');

class Score {
  tp = 0;
  predicted = 0;
  truth = 0;
  /** With `loose`, a key is right when the truth holds it spelled without punctuation. */
  constructor(private readonly loose = false) {}
  add(predicted: Iterable<string>, truth: Set<string>): void {
    const keys = this.loose ? new Set([...truth].map(unpunctuated)) : truth;
    for (const key of new Set(predicted)) {
      this.predicted++;
      if (keys.has(this.loose ? unpunctuated(key) : key)) this.tp++;
    }
    this.truth += truth.size;
  }
  get precision(): number {
    return this.predicted ? this.tp / this.predicted : 0;
  }
  get recall(): number {
    return this.truth ? this.tp / this.truth : 0;
  }
}

const naive = (s: unknown): string | undefined =>
  typeof s === 'string' && s.trim() ? s.toLowerCase().replace(/[^a-z0-9]/g, '_') : undefined;

function naiveKeys(containers: Cve5Containers | undefined): { vendors: string[]; products: string[] } {
  const vendors: string[] = [];
  const products: string[] = [];
  for (const entry of (containers?.cna?.affected ?? []) as { vendor?: unknown; product?: unknown }[]) {
    const v = naive(entry.vendor);
    if (!v) continue;
    vendors.push(v);
    const p = naive(entry.product);
    if (p) products.push(vendorKey(v, p));
  }
  return { vendors, products };
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function top(map: Map<string, number>, n = 20): [string, number][] {
  return [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
}

async function readRecords(file: string): Promise<Cve5Record[]> {
  const stream = fs.createReadStream(file);
  const records: Cve5Record[] = [];
  for await (const { line } of lines(/\.gz$/i.test(file) ? stream.pipe(zlib.createGunzip()) : stream)) {
    if (line.trim()) records.push(JSON.parse(line) as Cve5Record);
  }
  return records;
}

export async function run(args: string[]): Promise<void> {
  const cut = arg(args, '--cut') ?? DEFAULT_CUT;
  const threshold = {
    minSupport: Number(arg(args, '--min-support') ?? DEFAULT_THRESHOLD.minSupport),
    minShare: Number(arg(args, '--min-share') ?? DEFAULT_THRESHOLD.minShare),
    productMinSupport: Number(
      arg(args, '--product-min-support') ??
        DEFAULT_THRESHOLD.productMinSupport ??
        arg(args, '--min-support') ??
        DEFAULT_THRESHOLD.minSupport,
    ),
    productMinShare: Number(
      arg(args, '--product-min-share') ??
        DEFAULT_THRESHOLD.productMinShare ??
        arg(args, '--min-share') ??
        DEFAULT_THRESHOLD.minShare,
    ),
  };
  const file = corpusFile();
  const started = Date.now();
  const records = await readRecords(file);

  const nvd = args.includes('--no-nvd')
    ? { files: [], records: [], byCve: new Map<string, string[]>() }
    : nvdCpesBefore(cut);
  // With --nvd-teaches, NVD's configurations of a CVE the corpus also holds teach aliases with its CNA
  // text; by default they are vocabulary alone (teaching measured lower against CISA-ADP's CPEs).
  const nvdTeaches = args.includes('--nvd-teaches');
  const learner = new AliasLearner(threshold);
  let learnedFrom = 0;
  let learnedFromNvd = 0;
  const taughtByNvd = new Set<string>();
  const evaluation: Cve5Record[] = [];
  for (const record of records) {
    const published = record.cveMetadata?.datePublished;
    if (!published) continue;
    if (published < cut) {
      const id = record.cveMetadata?.cveId ?? '';
      const nvdCpes = nvdTeaches ? nvd.byCve.get(id) : undefined;
      if (nvdCpes) taughtByNvd.add(id);
      if (learner.learn(record.containers, nvdCpes)) {
        learnedFrom++;
        if (
          nvdCpes &&
          keysOfCpes([...adpCpes(record.containers), ...cnaCpes(record.containers)]).vendors.size === 0
        )
          learnedFromNvd++;
      }
    } else if (keysOfCpes(adpCpes(record.containers)).vendors.size > 0) {
      evaluation.push(record);
    }
  }
  for (const [id, cpes] of nvd.byCve) if (!taughtByNvd.has(id)) learner.learnCpes(cpes);
  const aliasTable = learner.toJSON();
  // An upper bound: the same aliases, with every CPE key of the corpus known (as a catalog holding
  // NVD's whole history would know most vendors before their next CVE). Not the headline number.
  const fullVocabulary = {
    ...aliasTable,
    vendorKeys: { ...aliasTable.vendorKeys },
    productKeys: { ...aliasTable.productKeys },
  };
  for (const record of records) {
    const keys = keysOfCpes([...adpCpes(record.containers), ...cnaCpes(record.containers)]);
    for (const k of keys.vendors) fullVocabulary.vendorKeys[k] ??= 0;
    for (const k of keys.products) fullVocabulary.productKeys[k] ??= 0;
  }
  const named = {
    vendors: new Score(),
    products: new Score(),
    naiveVendors: new Score(),
    naiveProducts: new Score(),
    records: 0,
  };
  const upper = { vendors: new Score(), products: new Score() };
  const loose = { vendors: new Score(true), products: new Score(true) };
  // The recall "never invent a vendor" allows: the share of truth keys some learning record or NVD
  // configuration before the cut named.
  const known = { vendors: new Score(), products: new Score(), namedVendors: new Score() };

  const vendors = { mapped: new Score(), textOnly: new Score(), naive: new Score() };
  const products = { mapped: new Score(), textOnly: new Score(), naive: new Score() };
  // Without the keys minted from names (rule cna-name): issue 20's confident-only mapping plus this
  // round's candidates and per-entry learning.
  const noMint = { vendors: new Score(), products: new Score() };
  // The held-out bucket (see `heldOut`) and the rest, each with the naive rule beside.
  const split = {
    tuned: {
      vendors: new Score(),
      products: new Score(),
      naiveVendors: new Score(),
      naiveProducts: new Score(),
    },
    held: {
      vendors: new Score(),
      products: new Score(),
      naiveVendors: new Score(),
      naiveProducts: new Score(),
    },
  };
  const rolled = rollingMap(records, evaluation, nvd.records, threshold);
  const rolling = {
    vendors: new Score(),
    products: new Score(),
    namedVendors: new Score(),
    namedProducts: new Score(),
  };
  let withCnaCpes = 0;
  let productRecords = 0;
  const vendorMisses = new Map<string, number>();
  const vendorWrong = new Map<string, number>();
  const productMisses = new Map<string, number>();
  const productWrong = new Map<string, number>();
  const rules = new Map<string, number>();
  const rulesRight = new Map<string, number>();

  for (const [index, record] of evaluation.entries()) {
    const truth = keysOfCpes(adpCpes(record.containers));
    const cnaOnly: Cve5Containers = { cna: record.containers?.cna };
    if (cnaCpes(cnaOnly).length > 0) withCnaCpes++;
    const mapped = mapCnaKeys(aliasTable, cnaOnly);
    const textOnly = mapCnaKeys(aliasTable, withoutCpes(cnaOnly));
    const base = naiveKeys(cnaOnly);
    const unminted = mapCnaKeys(aliasTable, cnaOnly, { mint: false });
    noMint.vendors.add(unminted.vendors, truth.vendors);
    const part = heldOut(record.cveMetadata?.cveId ?? '') ? split.held : split.tuned;
    part.vendors.add(mapped.vendors, truth.vendors);
    part.naiveVendors.add(base.vendors, truth.vendors);
    if (truth.products.size <= MAX_PRODUCTS) {
      noMint.products.add(unminted.products, truth.products);
      part.products.add(mapped.products, truth.products);
      part.naiveProducts.add(base.products, truth.products);
    }
    vendors.mapped.add(mapped.vendors, truth.vendors);
    vendors.textOnly.add(textOnly.vendors, truth.vendors);
    vendors.naive.add(base.vendors, truth.vendors);
    loose.vendors.add(mapped.vendors, truth.vendors);
    const seen = (keys: Set<string>, vocabulary: Record<string, number>) =>
      [...keys].filter((k) => vocabulary[k] !== undefined);
    known.vendors.add(seen(truth.vendors, aliasTable.vendorKeys), truth.vendors);
    const isNamed = record.containers?.cna?.affected?.some((e) => vendorTextKey(e.vendor)) ?? false;
    const daily = rolled[index]!;
    rolling.vendors.add(daily.vendors, truth.vendors);
    if (isNamed) rolling.namedVendors.add(daily.vendors, truth.vendors);
    if (truth.products.size <= MAX_PRODUCTS) {
      rolling.products.add(daily.products, truth.products);
      if (isNamed) rolling.namedProducts.add(daily.products, truth.products);
    }
    const full = mapCnaKeys(fullVocabulary, cnaOnly);
    if (isNamed) {
      named.records++;
      named.vendors.add(mapped.vendors, truth.vendors);
      named.naiveVendors.add(base.vendors, truth.vendors);
      known.namedVendors.add(seen(truth.vendors, aliasTable.vendorKeys), truth.vendors);
      upper.vendors.add(full.vendors, truth.vendors);
      if (truth.products.size <= MAX_PRODUCTS) {
        named.products.add(mapped.products, truth.products);
        named.naiveProducts.add(base.products, truth.products);
        upper.products.add(full.products, truth.products);
      }
    }
    for (const key of mapped.vendors) {
      count(rules, `vendor ${ruleOf(mapped, key)}`);
      if (truth.vendors.has(key)) count(rulesRight, `vendor ${ruleOf(mapped, key)}`);
    }
    if (truth.products.size <= MAX_PRODUCTS) {
      for (const key of mapped.products) {
        count(rules, `product ${ruleOf(mapped, key)}`);
        if (truth.products.has(key)) count(rulesRight, `product ${ruleOf(mapped, key)}`);
      }
    }
    const texts = cnaTexts(record);
    for (const key of truth.vendors)
      if (!mapped.vendors.includes(key)) count(vendorMisses, `${texts.vendors} → ${key}`);
    for (const key of mapped.vendors)
      if (!truth.vendors.has(key)) count(vendorWrong, `${texts.vendors} → ${key}`);
    if (truth.products.size <= MAX_PRODUCTS) {
      productRecords++;
      products.mapped.add(mapped.products, truth.products);
      products.textOnly.add(textOnly.products, truth.products);
      products.naive.add(base.products, truth.products);
      loose.products.add(mapped.products, truth.products);
      known.products.add(seen(truth.products, aliasTable.productKeys), truth.products);
      for (const key of truth.products) {
        if (!mapped.products.includes(key)) count(productMisses, `${texts.products} → ${short(key)}`);
      }
      for (const key of mapped.products) {
        if (!truth.products.has(key)) count(productWrong, `${texts.products} → ${short(key)}`);
      }
    }
  }
  // NVD's CPEs as the truth: the records after the cut that NVD's feeds configure (CNA container
  // alone as the input, as above), whether or not CISA-ADP gave CPEs.
  const nvdTruth = nvdCpesFrom(cut);
  const byNvd = {
    records: 0,
    vendors: new Score(),
    products: new Score(),
    naiveVendors: new Score(),
    naiveProducts: new Score(),
  };
  for (const record of records) {
    const published = record.cveMetadata?.datePublished;
    const cpes = nvdTruth.get(record.cveMetadata?.cveId ?? '');
    if (!published || published < cut || !cpes) continue;
    const truth = keysOfCpes(cpes);
    if (truth.vendors.size === 0) continue;
    byNvd.records++;
    const cnaOnly: Cve5Containers = { cna: record.containers?.cna };
    const mapped = mapCnaKeys(aliasTable, cnaOnly);
    const base = naiveKeys(cnaOnly);
    byNvd.vendors.add(mapped.vendors, truth.vendors);
    byNvd.naiveVendors.add(base.vendors, truth.vendors);
    if (truth.products.size <= MAX_PRODUCTS) {
      byNvd.products.add(mapped.products, truth.products);
      byNvd.naiveProducts.add(base.products, truth.products);
    }
  }
  // The mapper's cost: every record of the corpus mapped (CNA container) with the table, cold (a
  // table object the mapper has not seen: its per-table caches empty) and again warm.
  const timing = (() => {
    const cold = structuredClone(aliasTable);
    const containers = records.map((r) => ({ cna: r.containers?.cna }) as Cve5Containers);
    const t0 = process.hrtime.bigint();
    for (const c of containers) mapCnaKeys(cold, c);
    const t1 = process.hrtime.bigint();
    for (const c of containers) mapCnaKeys(cold, c);
    const t2 = process.hrtime.bigint();
    return { records: containers.length, coldMs: Number(t1 - t0) / 1e6, warmMs: Number(t2 - t1) / 1e6 };
  })();
  const seconds = (Date.now() - started) / 1000;

  const pct = (n: number) => `${fixed(n * 100)} %`;
  const verdict = (value: number, target: number) =>
    `${pct(value)} ${value >= target ? '✅' : '❌'} (≥ ${Math.round(target * 100)} %)`;
  const machine = machineInfo();
  const row = (name: string, s: Score) => [
    name,
    pct(s.precision),
    pct(s.recall),
    int(s.tp),
    int(s.predicted),
    int(s.truth),
  ];
  const scoreRows = (name: string, s: { mapped: Score; textOnly: Score; naive: Score }) => [
    [
      `${name}: learned mapping`,
      pct(s.mapped.precision),
      pct(s.mapped.recall),
      int(s.mapped.tp),
      int(s.mapped.predicted),
      int(s.mapped.truth),
    ],
    [
      `${name}: text only (CNA cpes ignored)`,
      pct(s.textOnly.precision),
      pct(s.textOnly.recall),
      int(s.textOnly.tp),
      int(s.textOnly.predicted),
      int(s.textOnly.truth),
    ],
    [
      `${name}: naive baseline`,
      pct(s.naive.precision),
      pct(s.naive.recall),
      int(s.naive.tp),
      int(s.naive.predicted),
      int(s.naive.truth),
    ],
  ];
  const missTable = (rows: [string, number][]) =>
    table(
      ['CNA text → key', 'records'],
      rows.map(([k, n]) => [k.replace(/\|/g, '\\|'), int(n)]),
      ['left', 'right'],
    );
  const markdown = [
    '# Vendor mapping quality (issues 20 and 30)',
    '',
    `Command: \`npm run bench -- vendor-mapping${args.length ? ' ' + args.join(' ') : ''}\``,
    '',
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}; commit ${machine.commit}${machine.srcDirty ? ' (src/ with uncommitted changes)' : ''}; load ${loadAverage()}; ${fixed(seconds)} s.`,
    '',
    `Corpus: \`${path.basename(file)}\`, ${int(records.length)} records. Cut date **${cut}**: the alias table is learned from the ${int(learnedFrom)} records published before it that have CNA text and CPEs (ADP's or the CNA's own${nvdTeaches ? `, or NVD's: ${int(learnedFromNvd)} of them have NVD's alone` : ''}); it holds ${int(Object.keys(aliasTable.vendors).length)} vendor texts, ${int(Object.keys(aliasTable.products).length)} (vendor, product) text pairs, ${int(Object.keys(aliasTable.vendorKeys).length)} CPE vendor keys and ${int(Object.keys(aliasTable.productKeys).length)} CPE product keys. NVD's configurations of ${int(nvd.byCve.size)} CVEs published before the cut (JSON 1.1 feeds ${nvd.files.join(', ') || 'none'}) add vocabulary${nvdTeaches ? ', and teach aliases for the CVEs the corpus also holds' : ' (no alias learned from them)'}. Threshold: at least ${threshold.minSupport} records and ${threshold.minShare * 100} % of the text's records for a vendor text, ${threshold.productMinSupport} and ${threshold.productMinShare * 100} % for a (vendor, product) pair.`,
    '',
    `Evaluation: the ${int(evaluation.length)} records published on or after the cut with ADP CPEs (the truth is the keys of those CPEs); the input is the CNA container alone. ${int(withCnaCpes)} of them carry CPEs of the CNA's own (used as input: they are part of the CNA container; the "text only" rows ignore them). Products: over the ${int(productRecords)} records whose ADP CPEs name at most ${MAX_PRODUCTS} products.`,
    '',
    table(
      ['keys', 'precision', 'recall', 'right', 'given', 'truth'],
      [...scoreRows('vendors', vendors), ...scoreRows('products', products)],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    `Records whose CNA names a vendor (not "n/a" or the like; the issue's reference set): ${int(named.records)}.`,
    '',
    table(
      ['keys (records with a CNA vendor name)', 'precision', 'recall', 'right', 'given', 'truth'],
      [
        row('vendors: learned mapping', named.vendors),
        row('vendors: naive baseline', named.naiveVendors),
        row('vendors: upper bound, every corpus CPE key known', upper.vendors),
        row('products: learned mapping', named.products),
        row('products: naive baseline', named.naiveProducts),
        row('products: upper bound, every corpus CPE key known', upper.products),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    'Fairness and bounds: the learned mapping scored with a key counted right when the truth spells it without punctuation (CISA-ADP wrote both `d-link` and `dlink`, `open-webui` and `openwebui`), and the recall at most reachable without inventing a key (truth keys that some learning record or NVD configuration before the cut named; precision 100 % by construction).',
    '',
    table(
      ['keys', 'precision', 'recall', 'right', 'given', 'truth'],
      [
        row('vendors: spelling-insensitive', loose.vendors),
        row('products: spelling-insensitive', loose.products),
        row('vendors: known before the cut (recall bound)', known.vendors),
        row('vendors: known before the cut, records with a CNA vendor name', known.namedVendors),
        row('products: known before the cut (recall bound)', known.products),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    'Without minting (no `cna-name` key: the candidates and per-entry learning alone), and split by CVE id: the held-out bucket (FNV-1a hash of the CVE id, modulo 5, is 0) against the rest, each with the naive rule beside.',
    '',
    table(
      ['keys', 'precision', 'recall', 'right', 'given', 'truth'],
      [
        row('vendors: without minting', noMint.vendors),
        row('products: without minting', noMint.products),
        row('vendors: learned mapping, tuning buckets', split.tuned.vendors),
        row('vendors: naive baseline, tuning buckets', split.tuned.naiveVendors),
        row('vendors: learned mapping, held-out bucket', split.held.vendors),
        row('vendors: naive baseline, held-out bucket', split.held.naiveVendors),
        row('products: learned mapping, tuning buckets', split.tuned.products),
        row('products: naive baseline, tuning buckets', split.tuned.naiveProducts),
        row('products: learned mapping, held-out bucket', split.held.products),
        row('products: naive baseline, held-out bucket', split.held.naiveProducts),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    `NVD's CPEs as the truth: the ${int(byNvd.records)} records published on or after the cut that NVD's feeds (${nvd.files.join(', ') || 'none'}) configure; the input is the CNA container alone. The feeds (February 2025) hold few CVEs of these months: too few records to judge by.`,
    '',
    table(
      ['keys (truth: NVD)', 'precision', 'recall', 'right', 'given', 'truth'],
      [
        row('vendors: learned mapping', byNvd.vendors),
        row('vendors: naive baseline', byNvd.naiveVendors),
        row('products: learned mapping', byNvd.products),
        row('products: naive baseline', byNvd.naiveProducts),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    `Mapper cost: the CNA containers of all ${int(timing.records)} corpus records mapped with the table in ${fixed(timing.coldMs)} ms cold (${fixed((timing.coldMs * 1000) / timing.records)} µs a record; the per-text caches empty), ${fixed(timing.warmMs)} ms warm.`,
    '',
    '## Rolling: the table rebuilt daily',
    '',
    'The same evaluation records, each mapped with the table learned from every record whose CPEs could have been known the day before its publication (a record teaches from the day after the later of its publication and its last ADP update), as the scheduled rebuild would have it; NVD vocabulary as above.',
    '',
    table(
      ['keys', 'precision', 'recall', 'right', 'given', 'truth'],
      [
        row('vendors: all records', rolling.vendors),
        row('vendors: records with a CNA vendor name', rolling.namedVendors),
        row('products: all records', rolling.products),
        row('products: records with a CNA vendor name', rolling.namedProducts),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    '',
    '## Verdicts (learned mapping, all evaluation records)',
    '',
    `- Vendor precision ${verdict(vendors.mapped.precision, 0.9)}, recall ${verdict(vendors.mapped.recall, 0.85)} (naive ${pct(vendors.naive.recall)})`,
    `- Product precision ${verdict(products.mapped.precision, 0.75)}, recall ${verdict(products.mapped.recall, 0.55)} (naive ${pct(products.naive.recall)})`,
    '',
    'Over the records with a CNA vendor name:',
    '',
    `- Vendor precision ${verdict(named.vendors.precision, 0.9)}, recall ${verdict(named.vendors.recall, 0.85)} (naive ${pct(named.naiveVendors.recall)})`,
    `- Product precision ${verdict(named.products.precision, 0.75)}, recall ${verdict(named.products.recall, 0.55)} (naive ${pct(named.naiveProducts.recall)})`,
    '',
    'Rolling (table rebuilt daily), all evaluation records:',
    '',
    `- Vendor precision ${verdict(rolling.vendors.precision, 0.9)}, recall ${verdict(rolling.vendors.recall, 0.85)}`,
    `- Product precision ${verdict(rolling.products.precision, 0.75)}, recall ${verdict(rolling.products.recall, 0.55)}`,
    '',
    'Keys given by rule (products over the records with at most 10):',
    '',
    table(
      ['rule', 'given', 'right', 'precision'],
      [...rules]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([rule, n]) => [
          rule,
          int(n),
          int(rulesRight.get(rule) ?? 0),
          pct((rulesRight.get(rule) ?? 0) / n),
        ]),
      ['left', 'right', 'right', 'right'],
    ),
    '',
    '## Worst vendor misses (CPE key not given)',
    '',
    missTable(top(vendorMisses)),
    '',
    '## Worst wrong vendor keys (given, not in the CPEs)',
    '',
    missTable(top(vendorWrong)),
    '',
    '## Worst product misses (records with ≤ 10 product keys)',
    '',
    missTable(top(productMisses)),
    '',
    '## Worst wrong product keys',
    '',
    missTable(top(productWrong)),
    '',
  ].join('\n');
  const out = args.length
    ? path.join(workDir, `RESULTS-vendor-mapping-${cut}.md`)
    : path.join(benchDir, 'RESULTS-vendor-mapping.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, markdown);
  console.log(markdown);
  console.log(`written to ${out}`);
}

/**
 * The held-out bucket: CVE ids whose FNV-1a hash is 0 modulo 5 (a fifth of the evaluation records).
 * Diagnostics written while tuning the rules must leave these records out.
 */
export function heldOut(cveId: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < cveId.length; i++) h = Math.imul(h ^ cveId.charCodeAt(i), 0x01000193) >>> 0;
  return h % 5 === 0;
}

function withoutCpes(containers: Cve5Containers): Cve5Containers {
  const affected = (containers.cna?.affected ?? []) as object[];
  return { cna: { ...containers.cna, affected: affected.map((e) => ({ ...e, cpes: undefined })) } };
}

function ruleOf(mapped: MappedKeys, key: string): string {
  const e = mapped.evidence[key]!;
  return e.source === 'cna-text' ? `${e.source}/${e.rule}` : e.source;
}

function short(key: string): string {
  return key.replace('$PRODUCT$', ':');
}

function cnaTexts(record: Cve5Record): { vendors: string; products: string } {
  const affected = record.containers?.cna?.affected ?? [];
  const vendors = [...new Set(affected.map((e) => String(e.vendor)))];
  const products = [...new Set(affected.map((e) => `${String(e.vendor)} / ${String(e.product)}`))];
  const list = (xs: string[]) => (xs.length > 2 ? `${xs.slice(0, 2).join(', ')}, …` : xs.join(', '));
  return { vendors: list(vendors), products: list(products) };
}
