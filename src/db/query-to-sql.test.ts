import { describe, expect, it } from 'vitest';
import { parseQuery } from '../domain/query-language.ts';
import { splitRequiredVendors } from './query-to-sql.ts';

/** A query's tree without where its terms were written. */
const shape = (node: unknown) =>
  JSON.stringify(node, (key, value: unknown) => (key === 'position' || key === 'raw' ? undefined : value));

describe('splitRequiredVendors', () => {
  const split = (q: string) => {
    const { keys, rest } = splitRequiredVendors(parseQuery(q));
    return { keys, rest: rest && shape(rest) };
  };

  it('takes the vendor= terms of a top-level AND out of the query', () => {
    const { keys, rest } = split('vendor=Oracle AND cvss31>=7 AND vendor=mysql');
    expect(keys).toEqual(['oracle', 'mysql']);
    expect(rest).toBe(shape(parseQuery('cvss31>=7')));
  });

  it('leaves nothing when the query is one vendor= term, or only vendor= terms', () => {
    expect(split('vendor=oracle')).toEqual({ keys: ['oracle'], rest: undefined });
    expect(split('vendor=oracle AND vendor=oracle')).toEqual({ keys: ['oracle'], rest: undefined });
  });

  it('requires nothing from a vendor under OR, a negated or partial vendor term', () => {
    for (const q of [
      'vendor=oracle OR kev=true',
      'vendor!=oracle AND kev=true',
      'vendor:orac AND kev=true',
    ]) {
      expect(split(q)).toEqual({ keys: [], rest: shape(parseQuery(q)) });
    }
  });

  it('keeps the other children of the AND, nested ORs included', () => {
    const { keys, rest } = split('vendor=acme AND (kev=true OR cvss31>=9) AND overflow');
    expect(keys).toEqual(['acme']);
    expect(rest).toBe(shape(parseQuery('(kev=true OR cvss31>=9) AND overflow')));
  });
});
