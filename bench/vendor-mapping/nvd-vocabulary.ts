/**
 * The CPEs of NVD's configurations in the JSON 1.1 feeds (2014, 2017, modified, recent) of
 * `../shared/data/nvd/feed-1.1` beside the project, or VULNTRACK_BENCH_NVD, per CVE published before
 * a date: the vendor and product names a catalog holding NVD's data knows, beside the ones learned
 * from CVE 5 records.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { projectRoot } from '../lib/paths.ts';

interface Node11 {
  cpe_match?: { cpe23Uri?: string }[];
  children?: Node11[];
}

interface Feed11 {
  CVE_Items?: {
    cve?: { CVE_data_meta?: { ID?: string } };
    publishedDate?: string;
    configurations?: { nodes?: Node11[] };
  }[];
}

function collect(nodes: Node11[] | undefined, out: string[]): void {
  for (const node of nodes ?? []) {
    for (const match of node.cpe_match ?? []) if (match.cpe23Uri) out.push(match.cpe23Uri);
    collect(node.children, out);
  }
}

export function nvdFeedDir(): string {
  return process.env.VULNTRACK_BENCH_NVD
    ? path.resolve(process.env.VULNTRACK_BENCH_NVD)
    : path.resolve(projectRoot, '../shared/data/nvd/feed-1.1');
}

/**
 * One list of CPEs per CVE published before `before` (ISO date), with the feed files read, and the
 * same lists by CVE id (a CVE in two feeds keeps the last one read).
 */
export function nvdCpesBefore(before: string): {
  files: string[];
  records: string[][];
  byCve: Map<string, string[]>;
} {
  return nvdCpes((published) => published < before);
}

/** The same, per CVE published on or after `from`: NVD's CPEs as the truth for later records. */
export function nvdCpesFrom(from: string): Map<string, string[]> {
  return nvdCpes((published) => published >= from).byCve;
}

function nvdCpes(wanted: (published: string) => boolean): {
  files: string[];
  records: string[][];
  byCve: Map<string, string[]>;
} {
  const dir = nvdFeedDir();
  const byCve = new Map<string, string[]>();
  if (!fs.existsSync(dir)) return { files: [], records: [], byCve };
  const files = fs.readdirSync(dir).filter((f) => /^nvdcve-1\.1-.*\.json\.gz$/.test(f));
  const records: string[][] = [];
  for (const file of files) {
    const feed = JSON.parse(
      zlib.gunzipSync(fs.readFileSync(path.join(dir, file))).toString('utf8'),
    ) as Feed11;
    for (const item of feed.CVE_Items ?? []) {
      if (!item.publishedDate || !wanted(item.publishedDate)) continue;
      const cpes: string[] = [];
      collect(item.configurations?.nodes, cpes);
      if (!cpes.length) continue;
      records.push(cpes);
      const id = item.cve?.CVE_data_meta?.ID;
      if (id) byCve.set(id, cpes);
    }
  }
  return { files, records, byCve };
}
