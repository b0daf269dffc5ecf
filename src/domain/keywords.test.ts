import { describe, expect, it } from 'vitest';
import { KeywordMatcher, keywordProbe, parseKeywords } from './keywords.ts';

const texts = (t: Partial<Parameters<KeywordMatcher['match']>[0]>) => ({
  vendors: [],
  products: [],
  title: null,
  description: null,
  ...t,
});

describe('KeywordMatcher', () => {
  describe('match', () => {
    it('matches whole words in any case: xz matches "xz" and "xz-utils", not "xzone"', () => {
      const m = new KeywordMatcher(['xz']);
      expect(m.match(texts({ products: ['xz'] })).get('xz')).toEqual(['product']);
      expect(m.match(texts({ title: 'Backdoor in XZ-Utils' })).get('xz')).toEqual(['title']);
      expect(m.match(texts({ description: 'the xzone daemon', title: 'xz_' })).get('xz')).toEqual(['title']);
      expect(m.match(texts({ description: 'the xzone daemon' })).size).toBe(0);
    });

    it('matches a keyword of several words as those words in a row, and names every field', () => {
      const m = new KeywordMatcher(['xz utils', 'node.js', 'red hat']);
      const found = m.match(
        texts({
          vendors: ['Red Hat'],
          products: ['xz-utils'],
          title: 'Node.js and xz utils',
          description: 'red, then hat',
        }),
      );
      expect(Object.fromEntries(found)).toEqual({
        'xz utils': ['product', 'title'],
        'node.js': ['title'],
        'red hat': ['vendor'],
      });
    });
  });
});

describe('parseKeywords', () => {
  it('trims, lower-cases and collapses duplicates in any case', () => {
    expect(parseKeywords([' XZ ', 'xz', 'Log4j  Core'])).toEqual({ keywords: ['xz', 'log4j core'] });
  });

  it('refuses a keyword shorter than 2 or longer than 100 characters, or without a letter or digit', () => {
    const r = parseKeywords(['x', 'a'.repeat(101), '--', 'ok']);
    expect(r).toEqual({
      errors: {
        keywords: [
          "'x' is too short: a keyword has 2 to 100 characters.",
          `'${'a'.repeat(40)}…' is too long (101 characters): a keyword has 2 to 100.`,
          "'--' has no letter or digit to match.",
        ],
      },
    });
  });

  it('refuses more than 100 distinct keywords', () => {
    const many = Array.from({ length: 101 }, (_, i) => `kw${i}`);
    expect(parseKeywords(many)).toEqual({
      errors: { keywords: ['A project watches at most 100 keywords; this list has 101.'] },
    });
    expect(parseKeywords([...many.slice(0, 100), 'KW0'])).toHaveProperty('keywords');
  });
});

describe('keywordProbe', () => {
  it('is the longest word', () => expect(keywordProbe('apache log4j-core')).toBe('apache'));
});
