import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTypedDate, toIsoUtc, toMicrosZ, toSecondsZ } from './timestamps.ts';

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

  describe('parseTypedDate', () => {
    const iso = (value: string) => {
      const r = parseTypedDate(value);
      return 'date' in r ? r.date.toISOString() : r.problem;
    };

    it('reads a date as midnight UTC and a date-time in its zone (UTC without one)', () => {
      expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
      expect(iso('2024-03-29T16:51')).toBe('2024-03-29T16:51:00.000Z');
      expect(iso('2024-03-29T16:51:12.123456Z')).toBe('2024-03-29T16:51:12.123Z');
      expect(iso('2024-03-29T18:51:12+02:00')).toBe('2024-03-29T16:51:12.000Z');
      expect(iso('0001-01-01')).toBe('0001-01-01T00:00:00.000Z');
      expect(iso('0099-06-01')).toBe('0099-06-01T00:00:00.000Z');
      expect(iso('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    });

    it('refuses a day or time that is not in the calendar instead of rolling it over', () => {
      for (const v of [
        '2024-02-30',
        '2023-02-29',
        '2024-13-01',
        '2024-04-31',
        '2024-01-01T24:00',
        '2024-01-01T10:60',
      ])
        expect(iso(v), v).toBe('impossible');
    });

    it('refuses a year outside 0001-9999, also when the zone moves the instant there', () => {
      for (const v of ['0000-01-01', '0001-01-01T00:30+01:00', '9999-12-31T23:00-05:00'])
        expect(iso(v), v).toBe('range');
    });

    it('refuses other forms', () => {
      for (const v of [
        '',
        'yesterday',
        '2024-1-1',
        '20240101',
        '2024-01-01T10',
        '2024-01-01T10:00+25:00',
        '2024-01-01 10:00',
      ])
        expect(iso(v), v).toBe('form');
    });
  });
});
