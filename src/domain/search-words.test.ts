import { describe, expect, it } from 'vitest';
import { searchWords } from './search-words.ts';

describe('searchWords', () => {
  it('splits on any blanks and keeps each word once, in any case', () => {
    expect(searchWords('  Apache\tlog4j  LOG4J apache\n2021 ')).toEqual(['Apache', 'log4j', '2021']);
  });

  it('has no words for blank text', () => {
    expect(searchWords(' \t ')).toEqual([]);
  });

  it('keeps punctuation and wildcards as typed (they match literally)', () => {
    expect(searchWords('100% CVE-2024-3094 a_b')).toEqual(['100%', 'CVE-2024-3094', 'a_b']);
  });
});
