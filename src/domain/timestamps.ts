/**
 * Upstream timestamps come as `2024-03-29T17:15:21.150` (NVD, UTC without zone), `2017-01-03T14:59Z`
 * (NVD 1.1), `2024-03-29T16:51:12.588Z` (CVE 5), `2024-03-29T00:00:00+00:00` (OpenCVE) or a bare date
 * (KEV). All become ISO 8601 UTC with milliseconds; undefined when unparseable.
 */
export function toIsoUtc(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  let s = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) s += 'T00:00:00Z';
  else if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(s)) s += 'Z';
  const t = Date.parse(s);
  if (Number.isNaN(t)) return undefined;
  return new Date(t).toISOString();
}

/** `YYYY-MM-DDTHH:MM:SSZ`: the whole-second form the API uses for CVE dates (a string in it is kept). */
export function toSecondsZ(date: Date | string): string {
  const iso = typeof date === 'string' ? date : date.toISOString();
  if (iso.length === 20 && iso[19] === 'Z') return iso;
  return iso.length === 24 && iso[19] === '.' ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d+Z$/, 'Z');
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: the microsecond form the API uses for its own resources. */
export function toMicrosZ(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Why a date a person typed was refused: not of the accepted form, not in the calendar, or out of range. */
export type DateProblem = 'form' | 'impossible' | 'range';

const TYPED_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The first and last instants a typed date may name: four-digit years, as PostgreSQL and Date both read them. */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The one strict reader of dates that people type (API filters, the audit log's `since`, the query
 * language): `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time `YYYY-MM-DDTHH:MM[:SS[.fff…]]`
 * with `Z` or `±HH:MM` (UTC without one). A date that is not in the calendar (`2024-02-30`,
 * `T25:00`) is refused, never rolled over to another day as `Date` does; so is a year outside
 * 0001–9999. Never throws.
 */
export function parseTypedDate(value: string): { date: Date } | { problem: DateProblem } {
  const m = TYPED_DATE.exec(value);
  if (!m) return { problem: 'form' };
  const [year = '', month = '', day = '', hour = '00', minute = '00', second = '00', fraction, zone = 'Z'] =
    m.slice(1);
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59))
    return { problem: 'form' };
  // Set the fields one by one (Date.UTC reads years 0-99 as 1900-1999), then read them back: a
  // date that rolled over (February 30th → March 1st, 25:00 → the next day) is not in the calendar.
  const fields = new Date(0);
  fields.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  fields.setUTCHours(Number(hour), Number(minute), Number(second));
  if (
    fields.getUTCFullYear() !== Number(year) ||
    fields.getUTCMonth() !== Number(month) - 1 ||
    fields.getUTCDate() !== Number(day) ||
    fields.getUTCHours() !== Number(hour) ||
    fields.getUTCMinutes() !== Number(minute) ||
    fields.getUTCSeconds() !== Number(second)
  ) {
    return { problem: 'impossible' };
  }
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const instant = fields.getTime() + millis - offsetMinutes * 60_000;
  if (Number(year) < 1 || instant < FIRST_INSTANT || instant > LAST_INSTANT) return { problem: 'range' };
  return { date: new Date(instant) };
}

/** One sentence for each `DateProblem`, naming the parameter: what a validation error says. */
export function dateProblemMessage(name: string, value: string, problem: DateProblem): string {
  switch (problem) {
    case 'form':
      return `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time such as 2024-03-29T16:51:12Z`;
    case 'impossible':
      return `${name} is not a real date: "${value}" does not exist in the calendar`;
    case 'range':
      return `${name} is out of range: dates run from 0001-01-01 to 9999-12-31`;
  }
}
