/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and sums its samples: self time per function,
 * inclusive time of chosen functions, and a breakdown into categories. Async stacks are cut at each
 * `await`, so inclusive times count synchronous work only; `(idle)` is the main thread waiting,
 * which in an importer means waiting on the database or the disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A frame as matched by rules: function name and the file relative to the project or package. */
export interface Frame {
  fn: string;
  file: string;
}

export interface Rule {
  name: string;
  match: (frame: Frame) => boolean;
}

export interface Share {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Functions by self time, as `name (file:line)`. */
  self: Share[];
  /** Each sample goes to the first category (in rule order) matched anywhere on its stack. */
  categories: Share[];
  /** Time with the rule's frame anywhere on the stack (overlapping: shares do not add up). */
  inclusive: Share[];
}

/** `src/domain/cve.ts`, `pg/lib/client.js`, `node:zlib` — short enough for a table. */
export function shortFile(url: string): string {
  if (!url) return '';
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) return file.slice(nm + '/node_modules/'.length);
  if (file.startsWith(projectRoot)) return path.relative(projectRoot, file);
  // A profile recorded in another checkout (a clean clone): its project files still read `src/…`.
  return /\/((?:src|bench|test|bin)\/.*)$/.exec(file)?.[1] ?? file;
}

export function summarizeProfile(
  file: string,
  options: { categories: Rule[]; inclusive: Rule[]; top?: number },
): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frameOf = (n: ProfileNode): Frame => ({
    fn: n.callFrame.functionName || '(anonymous)',
    file: shortFile(n.callFrame.url),
  });
  const stackOf = (id: number): Frame[] => {
    const frames: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) frames.push(frameOf(node));
    }
    return frames;
  };

  // Per node, computed once: a profile has thousands of nodes but hundreds of thousands of samples.
  const perNode = new Map<number, { self: string; category: string; inclusive: string[] }>();
  const describe = (id: number) => {
    let d = perNode.get(id);
    if (!d) {
      const node = byId.get(id);
      const stack = stackOf(id);
      const leaf = stack[0] ?? { fn: '(unknown)', file: '' };
      // tsx emits each module on one line, so line 1 says nothing and is left out.
      const line = node && node.callFrame.lineNumber > 0 ? `:${node.callFrame.lineNumber + 1}` : '';
      d = {
        self: leaf.file ? `${leaf.fn} (${leaf.file}${line})` : leaf.fn,
        category: options.categories.find((r) => stack.some(r.match))?.name ?? 'other',
        inclusive: options.inclusive.filter((r) => stack.some(r.match)).map((r) => r.name),
      };
      perNode.set(id, d);
    }
    return d;
  };

  const self = new Map<string, number>();
  const categories = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the gap before sample i, so the time spent in sample i is the next gap.
    const us = profile.timeDeltas[i + 1] ?? 0;
    totalUs += us;
    const d = describe(id);
    add(self, d.self, us);
    add(categories, d.category, us);
    for (const name of d.inclusive) add(inclusive, name, us);
  });
  const shares = (m: Map<string, number>, top = Infinity): Share[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: totalUs ? us / totalUs : 0 }));
  return {
    totalMs: totalUs / 1000,
    self: shares(self, options.top ?? 25),
    categories: shares(categories),
    inclusive: shares(inclusive),
  };
}
