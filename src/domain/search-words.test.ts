import { describe, expect, it } from 'vitest';
import { cveSearchWords, searchPieces, searchWords } from './search-words.ts';

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

describe('cveSearchWords', () => {
  it('has each word of three characters or more of the id, title, description and names once, as written', () => {
    const words = cveSearchWords({
      cveId: 'CVE-2021-44228',
      title: 'Log4Shell in Apache Log4j2',
      description: 'Apache Log4j2 2.0-beta9 through 2.15.0 (excluding 2.12.2) JNDI features… in Log4j2',
      vendors: ['apache', 'apache$PRODUCT$log4j'],
    });
    expect(words).toEqual([
      'CVE',
      '2021',
      '44228',
      'Log4Shell',
      'Apache',
      'Log4j2',
      'beta9',
      'through',
      'excluding',
      'JNDI',
      'features…',
      'apache',
      'log4j',
    ]);
  });

  it('counts the characters of the word in lower case', () => {
    // "İx" is two characters, three in lower case ("i̇x").
    expect(cveSearchWords({ cveId: 'İx', title: null, description: 'ab xy', vendors: [] })).toEqual(['İx']);
  });
});
