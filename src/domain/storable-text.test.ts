import { describe, expect, it } from 'vitest';
import { mayHoldUnstorable, storableJson, storableText } from './storable-text.ts';

describe('storable-text', () => {
  describe('storableText', () => {
    it('removes U+0000 and replaces a lone surrogate by U+FFFD', () => {
      expect(storableText('a\u0000b\u0000')).toBe('ab');
      expect(storableText('x\ud800y')).toBe('x\ufffdy');
      expect(storableText('\udc00')).toBe('\ufffd');
      expect(storableText('end\ud83d')).toBe('end\ufffd');
    });

    it('keeps surrogate pairs, other control characters and ordinary text as they are', () => {
      for (const text of ['Log4Shell 😀', 'tab\tand\u0001', '', 'escaped \\u0000 text']) {
        expect(storableText(text)).toBe(text);
      }
    });
  });

  describe('storableJson', () => {
    it('cleans every string and key at any depth, leaving the input as it was', () => {
      const value = {
        description: 'a\u0000b',
        references: [{ url: 'https://example.org/\u0000x', tags: ['ok'] }],
        'key\u0000': 1,
        nested: { score: 9.8, flag: true, none: null },
      };
      const before = JSON.stringify(value);
      expect(storableJson(value)).toEqual({
        description: 'ab',
        references: [{ url: 'https://example.org/x', tags: ['ok'] }],
        key: 1,
        nested: { score: 9.8, flag: true, none: null },
      });
      expect(JSON.stringify(value)).toBe(before);
    });

    it('returns the value itself when nothing needs cleaning, and shares the unchanged parts', () => {
      const clean = { a: ['x', { b: 'y' }], c: 1 };
      expect(storableJson(clean)).toBe(clean);
      const mixed = { clean, dirty: ['\u0000'] };
      const out = storableJson(mixed);
      expect(out.clean).toBe(clean);
      expect(out.dirty).toEqual(['']);
    });

    it('keeps a `__proto__` key an own key', () => {
      const value = JSON.parse('{"__proto__": {"x": "\\u0000"}}') as Record<string, unknown>;
      const out = storableJson(value);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.keys(out)).toEqual(['__proto__']);
    });
  });

  describe('mayHoldUnstorable', () => {
    it('is true for the JSON of a value holding U+0000 or a lone surrogate, false for ordinary text', () => {
      expect(mayHoldUnstorable(JSON.stringify({ d: 'a\u0000' }))).toBe(true);
      expect(mayHoldUnstorable(JSON.stringify({ d: 'a\udfff' }))).toBe(true);
      expect(mayHoldUnstorable(JSON.stringify({ d: 'a\ud83d\ude00 \u0001 é' }))).toBe(false);
    });
  });
});
