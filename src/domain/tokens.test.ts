import { describe, expect, it } from 'vitest';
import { bearerCredential, generateToken, parseToken, sameSecret } from './tokens.ts';

describe('bearerCredential', () => {
  it('takes the credential of a Bearer header, whatever the scheme’s case and the spaces around', () => {
    expect(bearerCredential('Bearer abc.def')).toBe('abc.def');
    expect(bearerCredential('bearer   abc ')).toBe('abc');
  });

  it('refuses no header, another scheme, an empty or a two-part credential', () => {
    for (const header of [undefined, '', 'Basic abc', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearerabc'])
      expect(bearerCredential(header), String(header)).toBeUndefined();
  });
});

describe('sameSecret', () => {
  it('is true for the same secret only, whatever the lengths', () => {
    expect(sameSecret('scrape-me-please-0123', 'scrape-me-please-0123')).toBe(true);
    expect(sameSecret('scrape-me-please-0124', 'scrape-me-please-0123')).toBe(false);
    expect(sameSecret('scrape', 'scrape-me-please-0123')).toBe(false);
    expect(sameSecret('', 'x')).toBe(false);
  });
});

describe('tokens', () => {
  it('parses what it generates, and nothing of another shape', () => {
    const { token, tokenId, secret } = generateToken();
    expect(parseToken(token)).toEqual({ tokenId, secret });
    expect(parseToken(`${token}x`)).toBeUndefined();
    expect(parseToken(token.replace('vtr_org', 'vtr_usr'))).toBeUndefined();
  });
});
