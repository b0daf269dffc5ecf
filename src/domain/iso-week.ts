/**
 * ISO 8601 weeks (Monday to Monday, UTC): the organization's weekly report names a week
 * `YYYY-Www` (`2026-W47`), as an `<input type="week">` sends it.
 */

const DAY_MS = 86_400_000;
const WEEK = /^(\d{4})-W(\d{2})$/;

export interface IsoWeek {
  year: number;
  week: number;
}

/** Monday 00:00 UTC of ISO week 1 of `year` (the week with the year's first Thursday). */
function firstMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  return jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
}

/** The number of ISO weeks of `year` (52 or 53). */
export const weeksIn = (year: number) =>
  Math.round((firstMonday(year + 1) - firstMonday(year)) / (7 * DAY_MS));

/** The ISO week `at` falls in (UTC). */
export function isoWeekOf(at: Date): IsoWeek {
  const year = at.getUTCFullYear();
  for (const y of [year + 1, year, year - 1]) {
    const start = firstMonday(y);
    if (at.getTime() >= start)
      return { year: y, week: Math.floor((at.getTime() - start) / (7 * DAY_MS)) + 1 };
  }
  return { year: year - 1, week: weeksIn(year - 1) };
}

/** From Monday 00:00 UTC to the next Monday 00:00 UTC. */
export function weekPeriod(w: IsoWeek): { start: Date; end: Date } {
  const start = firstMonday(w.year) + (w.week - 1) * 7 * DAY_MS;
  return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
}

/** `2026-W47` for week 47 of 2026. */
export const formatIsoWeek = (w: IsoWeek) => `${w.year}-W${String(w.week).padStart(2, '0')}`;

/** The week a `YYYY-Www` text names, or undefined when it names none (week 53 of a 52-week year). */
export function parseIsoWeek(text: string): IsoWeek | undefined {
  const m = WEEK.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const week = Number(m[2]);
  if (year < 1970 || year > 9999 || week < 1 || week > weeksIn(year)) return undefined;
  return { year, week };
}

/** The week `weeks` weeks after (or before, negative) `w`. */
export const addWeeks = (w: IsoWeek, weeks: number): IsoWeek =>
  isoWeekOf(new Date(weekPeriod(w).start.getTime() + weeks * 7 * DAY_MS));
