/**
 * Fails when the modules under a folder (default `src/`) import each other in a cycle, type-only
 * imports included: a cycle means two modules cannot be understood, tested or moved apart.
 * Prints each cycle as a chain of files. Part of `npm run check`.
 *
 *   node --import tsx scripts/check-import-cycles.ts [folder]
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every `.ts` and `.tsx` file under `dir` (the web UI is `.tsx`). */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) return [];
    return [path.join(entry.parentPath, entry.name)];
  });
}

/** The files of the tree that `file` imports or re-exports (relative specifiers only). */
function importsOf(file: string, inTree: Set<string>): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier))
    .filter((target) => inTree.has(target));
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The import graph of the `.ts` and `.tsx` files under `dir` (absolute paths). */
export function importGraph(dir: string): Map<string, string[]> {
  const files = sourceFiles(path.resolve(dir));
  const inTree = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file, inTree)]));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dir = process.argv[2] ?? 'src';
  const cycles = findCycles(importGraph(dir));
  for (const cycle of cycles) {
    console.error(
      `import cycle among: ${cycle.map((file) => path.relative(process.cwd(), file)).join(', ')}`,
    );
  }
  if (cycles.length > 0) {
    console.error(
      `${cycles.length} import cycle(s) under ${dir}/: split the shared part into its own module`,
    );
    process.exit(1);
  }
  console.log(`no import cycles under ${dir}/`);
}
