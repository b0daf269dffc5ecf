/** Dates and numbers as the signed-in user reads them (their time zone and date format). */
import type { DateFormat } from '../../domain/user.ts';

export interface DateStyle {
  timeZone: string;
  dateFormat: DateFormat;
}

export const DEFAULT_DATE_STYLE: DateStyle = { timeZone: 'UTC', dateFormat: 'iso' };

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(date: Date, timeZone: string) {
  const key = timeZone;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(key, formatter);
  }
  const out: Record<string, string> = {};
  for (const p of formatter.formatToParts(date)) out[p.type] = p.value;
  return out as Record<'year' | 'month' | 'day' | 'hour' | 'minute', string>;
}

/** The calendar date: 2024-03-29, 03/29/2024 or 29/03/2024. */
export function formatDay(date: Date, style: DateStyle): string {
  const p = parts(date, style.timeZone);
  switch (style.dateFormat) {
    case 'us':
      return `${p.month}/${p.day}/${p.year}`;
    case 'eu':
      return `${p.day}/${p.month}/${p.year}`;
    case 'iso':
      return `${p.year}-${p.month}-${p.day}`;
  }
}

/** Date and time: 2024-03-29 14:05, 03/29/2024 2:05 PM or 29/03/2024 14:05. */
export function formatDateTime(date: Date, style: DateStyle): string {
  const p = parts(date, style.timeZone);
  const day = formatDay(date, style);
  if (style.dateFormat === 'us') {
    const h = Number(p.hour);
    return `${day} ${h % 12 === 0 ? 12 : h % 12}:${p.minute} ${h < 12 ? 'AM' : 'PM'}`;
  }
  return `${day} ${p.hour}:${p.minute}`;
}

const integer = new Intl.NumberFormat('en-US');

/** 12,345 */
export const formatCount = (n: number): string => integer.format(n);

const languages = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A language tag's English name (`en-US` is "American English"); the tag itself when unknown. */
export function languageName(tag: string): string {
  try {
    return languages.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** A triage status as people read it (kept here for the pages that import it from the kit). */
export { statusLabel } from '../../domain/triage.ts';
