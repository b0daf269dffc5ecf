import { describe, expect, it } from 'vitest';
import { addWeeks, formatIsoWeek, isoWeekOf, parseIsoWeek, weekPeriod, weeksIn } from './iso-week.ts';

describe('iso-week', () => {
  it('finds the ISO week of a date, across year ends', () => {
    expect(isoWeekOf(new Date('2026-11-25T12:00:00Z'))).toEqual({ year: 2026, week: 48 });
    // 2021-01-03 (a Sunday) is in the last week of 2020, which has 53 weeks.
    expect(isoWeekOf(new Date('2021-01-03T23:59:59Z'))).toEqual({ year: 2020, week: 53 });
    expect(isoWeekOf(new Date('2021-01-04T00:00:00Z'))).toEqual({ year: 2021, week: 1 });
    // 2024-12-30 (a Monday) starts week 1 of 2025.
    expect(isoWeekOf(new Date('2024-12-30T00:00:00Z'))).toEqual({ year: 2025, week: 1 });
  });

  it('gives the Monday-to-Monday period of a week, in UTC', () => {
    expect(weekPeriod({ year: 2026, week: 48 })).toEqual({
      start: new Date('2026-11-23T00:00:00Z'),
      end: new Date('2026-11-30T00:00:00Z'),
    });
  });

  it('parses YYYY-Www and refuses weeks a year does not have', () => {
    expect(parseIsoWeek('2026-W07')).toEqual({ year: 2026, week: 7 });
    expect(weeksIn(2020)).toBe(53);
    expect(weeksIn(2026)).toBe(53);
    expect(weeksIn(2025)).toBe(52);
    expect(parseIsoWeek('2025-W53')).toBeUndefined();
    expect(parseIsoWeek('2026-W00')).toBeUndefined();
    expect(parseIsoWeek('2026-47')).toBeUndefined();
    expect(formatIsoWeek({ year: 2026, week: 7 })).toBe('2026-W07');
  });

  it('steps by weeks across year ends', () => {
    expect(addWeeks({ year: 2020, week: 53 }, 1)).toEqual({ year: 2021, week: 1 });
    expect(addWeeks({ year: 2021, week: 1 }, -1)).toEqual({ year: 2020, week: 53 });
  });
});
