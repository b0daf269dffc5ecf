import { describe, expect, it } from 'vitest';
import { emptyDocument } from './cve.ts';
import { retiredBySnapshot, statedSince } from './snapshot.ts';

function kevStatement(kev: Record<string, unknown>) {
  const doc = emptyDocument();
  doc.metrics.kev = kev;
  return doc;
}

describe('snapshot', () => {
  describe('statedSince', () => {
    it('is the KEV entry’s dateAdded, in any upstream form, and undefined without a dated fact', () => {
      expect(statedSince(kevStatement({ dateAdded: '2025-09-04T00:00:00+00:00' }))).toBe(
        '2025-09-04T00:00:00.000Z',
      );
      expect(statedSince(kevStatement({ dateAdded: '2025-09-04' }))).toBe('2025-09-04T00:00:00.000Z');
      expect(statedSince(kevStatement({ dueDate: '2025-09-25' }))).toBeUndefined();
      expect(statedSince(emptyDocument())).toBeUndefined();
    });
  });

  describe('retiredBySnapshot', () => {
    const released = '2025-08-25T17:04:19.979Z';
    it('retires a fact dated before the snapshot’s day, or not dated at all', () => {
      expect(retiredBySnapshot(kevStatement({ dateAdded: '2025-08-24T00:00:00Z' }), released)).toBe(true);
      expect(retiredBySnapshot(emptyDocument(), released)).toBe(true);
    });

    it('keeps a fact dated on the snapshot’s day or after it', () => {
      expect(retiredBySnapshot(kevStatement({ dateAdded: '2025-08-25T00:00:00Z' }), released)).toBe(false);
      expect(retiredBySnapshot(kevStatement({ dateAdded: '2025-09-04T00:00:00Z' }), released)).toBe(false);
    });
  });
});
