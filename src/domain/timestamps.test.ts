import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toIsoUtc, toMicrosZ, toSecondsZ } from './timestamps.ts';

describe('timestamps', () => {
  // Zone-less upstream times are UTC: run in a zone far from UTC so that a local-time reading shows.
  const savedTz = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'America/New_York';
  });
  afterAll(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  describe('toIsoUtc', () => {
    it('reads every upstream form as UTC with milliseconds', () => {
      // NVD API 2.0 (no zone), NVD 1.1 (minutes, Z), CVE 5, OpenCVE (+00:00), KEV (date only).
      expect(toIsoUtc('2024-03-29T17:15:21.150')).toBe('2024-03-29T17:15:21.150Z');
      expect(toIsoUtc('2014-04-07T22:55Z')).toBe('2014-04-07T22:55:00.000Z');
      expect(toIsoUtc('2024-03-29T16:51:12.588Z')).toBe('2024-03-29T16:51:12.588Z');
      expect(toIsoUtc('2024-03-29T00:00:00+00:00')).toBe('2024-03-29T00:00:00.000Z');
      expect(toIsoUtc('2022-05-04')).toBe('2022-05-04T00:00:00.000Z');
    });

    it('reads a zone-less CVE 5 date without fraction, or with microseconds, as UTC', () => {
      expect(toIsoUtc('2011-04-13T14:00:00')).toBe('2011-04-13T14:00:00.000Z');
      expect(toIsoUtc('2024-05-02T21:17:22.890858')).toBe('2024-05-02T21:17:22.890Z');
      expect(toIsoUtc('2025-09-05T14:02:28.208148+00:00')).toBe('2025-09-05T14:02:28.208Z');
    });

    it('converts an explicit offset to UTC', () => {
      expect(toIsoUtc('2024-03-29T12:00:00+02:00')).toBe('2024-03-29T10:00:00.000Z');
    });

    it('returns undefined for empty, unparseable or non-string values', () => {
      for (const v of ['', 'yesterday', '2024-13-45', 'not a date', 1711731321150, null, undefined, {}]) {
        expect(toIsoUtc(v), String(v)).toBeUndefined();
      }
    });
  });

  describe('toSecondsZ', () => {
    it('cuts the fraction of an ISO string or a Date', () => {
      expect(toSecondsZ('2024-03-29T16:51:12.588Z')).toBe('2024-03-29T16:51:12Z');
      expect(toSecondsZ(new Date('2014-04-07T22:55:00.000Z'))).toBe('2014-04-07T22:55:00Z');
      expect(toSecondsZ('2024-03-29T16:51:12.123456Z')).toBe('2024-03-29T16:51:12Z');
    });

    it('keeps a string already in the whole-second form (as the database formats list dates)', () => {
      expect(toSecondsZ('2024-03-29T16:51:12Z')).toBe('2024-03-29T16:51:12Z');
    });
  });

  describe('toMicrosZ', () => {
    it('writes six fraction digits', () => {
      expect(toMicrosZ(new Date('2024-03-29T16:51:12.588Z'))).toBe('2024-03-29T16:51:12.588000Z');
      expect(toMicrosZ(new Date('2024-03-29T16:51:12.000Z'))).toBe('2024-03-29T16:51:12.000000Z');
    });
  });
});
