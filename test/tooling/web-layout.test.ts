/**
 * The layout of src/web, read from the import graph (the same one the cycle check builds): what the
 * lint rules refuse file by file, checked over the whole tree, and the size rule no lint rule has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../scripts/check-import-cycles.ts';

const SRC = path.resolve('src');
const rel = (file: string) => path.relative(SRC, file);
const graph = importGraph('src');
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => [rel(from), rel(to)] as const));

describe('src/web layout', () => {
  it('has no page module imported by anything but its feature’s index.ts', () => {
    const wrong = edges.filter(
      ([from, to]) =>
        /\.routes\.tsx$/.test(to) && to.startsWith('web/') && !/^web\/[a-z-]+\/index\.ts$/.test(from),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps api/ and web/ apart: neither imports the other', () => {
    const crossing = edges.filter(
      ([from, to]) =>
        (from.startsWith('api/') && to.startsWith('web/')) ||
        (from.startsWith('web/') && to.startsWith('api/')),
    );
    expect(crossing).toEqual([]);
  });

  it('has no feature importing another feature', () => {
    const feature = (file: string) =>
      /^web\/(catalog|account|org|project|email-links|admin)\//.exec(file)?.[1];
    const crossing = edges.filter(
      ([from, to]) => feature(from) && feature(to) && feature(from) !== feature(to),
    );
    expect(crossing).toEqual([]);
  });

  it('has no file over 500 lines', () => {
    const large = [...graph.keys()]
      .filter((file) => rel(file).startsWith('web/'))
      .map((file) => [rel(file), fs.readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 500);
    expect(large).toEqual([]);
  });
});
