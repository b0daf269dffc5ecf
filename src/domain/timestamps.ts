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
