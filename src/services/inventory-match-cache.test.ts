import { describe, expect, it } from 'vitest';
import type { MatchableCve } from '../domain/inventory-match.ts';
import { InventoryMatchCache } from './inventory-match-cache.ts';

const cve = (cveId: string): MatchableCve => ({ cveId, nvdConfigurations: null, affected: [] });

describe('InventoryMatchCache', () => {
  it('uses an entry as is at the version it was checked, and asks for its token after the version moved', () => {
    const cache = new InventoryMatchCache(10);
    cache.begin(5);
    cache.store(cve('CVE-1'), 't1', 5);
    expect(cache.lookup(['CVE-1', 'CVE-2'], 5)).toEqual({
      fresh: new Map([['CVE-1', cve('CVE-1')]]),
      stale: new Map(),
      unknown: ['CVE-2'],
    });
    cache.begin(6);
    const later = cache.lookup(['CVE-1'], 6);
    expect(later.fresh.size).toBe(0);
    expect(later.stale).toEqual(new Map([['CVE-1', 't1']]));
    // Its token unchanged: current at 6, used as is after.
    expect(cache.confirm('CVE-1', 6)).toEqual(cve('CVE-1'));
    expect(cache.lookup(['CVE-1'], 6).fresh.size).toBe(1);
  });

  it('keeps at most maxCves entries, dropping the least recently used', () => {
    const cache = new InventoryMatchCache(2);
    cache.begin(1);
    cache.store(cve('A'), 'a', 1);
    cache.store(cve('B'), 'b', 1);
    cache.lookup(['A'], 1); // A used: B is now the oldest
    cache.store(cve('C'), 'c', 1);
    expect(cache.size).toBe(2);
    expect(cache.lookup(['A', 'B', 'C'], 1).unknown).toEqual(['B']);
  });

  it('drops a tenth more than the excess at once, least recently used first', () => {
    const cache = new InventoryMatchCache(100);
    cache.begin(1);
    for (let i = 0; i < 100; i++) cache.store(cve(`CVE-${i}`), 't', 1);
    cache.lookup(['CVE-0'], 1); // CVE-0 used: CVE-1 … CVE-11 are now the oldest
    cache.store(cve('CVE-100'), 't', 1);
    expect(cache.size).toBe(90);
    const { unknown } = cache.lookup(['CVE-0', 'CVE-1', 'CVE-11', 'CVE-12', 'CVE-100'], 1);
    expect(unknown).toEqual(['CVE-1', 'CVE-11']);
  });

  it('keeps candidate ids for one version only, and never stores a slower call’s older read', () => {
    const cache = new InventoryMatchCache(10);
    cache.begin(3);
    cache.storeIds(
      'key',
      new Map([['apache$PRODUCT$log4j', ['CVE-1']]]),
      ['apache$PRODUCT$log4j', 'none'],
      3,
    );
    expect(cache.ids('key', ['apache$PRODUCT$log4j', 'none', 'other'], 3)).toEqual({
      known: new Map([
        ['apache$PRODUCT$log4j', ['CVE-1']],
        ['none', []],
      ]),
      missing: ['other'],
    });
    cache.begin(4);
    expect(cache.ids('key', ['apache$PRODUCT$log4j'], 4).missing).toEqual(['apache$PRODUCT$log4j']);
    cache.storeIds('key', new Map([['apache$PRODUCT$log4j', ['CVE-OLD']]]), ['apache$PRODUCT$log4j'], 3);
    cache.begin(3); // a call that started before the move: the cache stays at 4
    expect(cache.ids('key', ['apache$PRODUCT$log4j'], 4).missing).toEqual(['apache$PRODUCT$log4j']);
  });

  it('keeps nothing with maxCves 0', () => {
    const cache = new InventoryMatchCache(0);
    cache.begin(1);
    cache.store(cve('A'), 'a', 1);
    cache.storeIds('name', new Map([['log4j', ['A']]]), ['log4j'], 1);
    expect(cache.size).toBe(0);
    expect(cache.ids('name', ['log4j'], 1).missing).toEqual(['log4j']);
  });
});
