import { describe, expect, it } from 'vitest';
import { searchPieces, searchWords } from './search-words.ts';

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

describe('searchPieces', () => {
  it('is the whole text, open at both ends, for a text without punctuation', () => {
    expect(searchPieces('Log4j')).toEqual([{ text: 'Log4j', openStart: true, openEnd: true }]);
  });

  it('knows the runs between punctuation are whole words and the outer ones are not', () => {
    expect(searchPieces('2.14.1')).toEqual([
      { text: '2', openStart: true, openEnd: false },
      { text: '14', openStart: false, openEnd: false },
      { text: '1', openStart: false, openEnd: true },
    ]);
  });

  it('closes a run that punctuation or a blank follows or precedes in the text', () => {
    expect(searchPieces('-remote attacker.')).toEqual([
      { text: 'remote', openStart: false, openEnd: false },
      { text: 'attacker', openStart: false, openEnd: false },
    ]);
    expect(searchPieces('cve-2021-442')).toEqual([
      { text: 'cve', openStart: true, openEnd: false },
      { text: '2021', openStart: false, openEnd: false },
      { text: '442', openStart: false, openEnd: true },
    ]);
  });

  it('keeps non-ASCII characters inside words and has no pieces for punctuation alone', () => {
    expect(searchPieces('Müller_Straße')).toEqual([
      { text: 'Müller', openStart: true, openEnd: false },
      { text: 'Straße', openStart: false, openEnd: true },
    ]);
    expect(searchPieces('100%')).toEqual([{ text: '100', openStart: true, openEnd: false }]);
    expect(searchPieces('%_.')).toEqual([]);
  });
});
