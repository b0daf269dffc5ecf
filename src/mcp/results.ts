/**
 * What a tool answers (docs/mcp.md, "Results"): a short text summary for the model to read first,
 * then the compact JSON of the result, at most RESULT_MAX_BYTES; and what a refusal looks like: the
 * error catalog's code first (`not_found: Not found.`), as API v2 names it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../domain/errors.ts';

/** The most bytes of JSON a tool or resource answers with; longer lists are cut, and say so. */
export const RESULT_MAX_BYTES = 64 * 1024;
/** The most items of a page of CVEs, vendors or projects a tool lists at once. */
export const PAGE_MAX = 50;
/** The most components `match_components` matches in one call. */
export const COMPONENTS_MAX = 100;

/** What a tool's work gives: the summary sentence and the data. */
export interface ToolAnswer {
  summary: string;
  data: Record<string, unknown>;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * `data` as JSON of at most `max` bytes: when longer, the longest array in it loses items from its
 * end until it fits (`truncated` says how many are left out), then any long text is shortened.
 */
export function capped(data: Record<string, unknown>, max = RESULT_MAX_BYTES): Record<string, unknown> {
  if (bytes(data) <= max) return data;
  const out: Record<string, unknown> = { ...data };
  const arrays = Object.entries(out)
    .filter(([, v]) => Array.isArray(v))
    .sort(([, a], [, b]) => bytes(b) - bytes(a));
  for (const [name, value] of arrays) {
    const items = value as unknown[];
    // Halve, then step back up: the fewest rounds of JSON.stringify for a long list.
    let keep = items.length;
    while (
      keep > 0 &&
      bytes({ ...out, [name]: items.slice(0, keep), truncated: note(name, items, keep) }) > max
    )
      keep = Math.floor(keep / 2);
    let step = Math.max(1, Math.floor(keep / 4));
    while (step >= 1 && keep < items.length) {
      const next = Math.min(items.length, keep + step);
      if (bytes({ ...out, [name]: items.slice(0, next), truncated: note(name, items, next) }) <= max)
        keep = next;
      else step = Math.floor(step / 2);
    }
    if (keep === items.length) continue;
    out[name] = items.slice(0, keep);
    out.truncated = note(name, items, keep);
    if (bytes(out) <= max) return out;
  }
  // A single huge text (a description, a reference list written as one string): its JSON, cut
  // until it fits (escaped quotes and non-ASCII letters make the bytes more than the characters).
  const text = JSON.stringify(out);
  const truncated = `The result was ${text.length} characters; only its start fits in ${max / 1024} KB.`;
  let keep = text.length;
  let partial = text;
  while (bytes({ truncated, partial }) > max) {
    keep = Math.floor((keep * max * 0.95) / bytes({ truncated, partial }));
    partial = text.slice(0, keep);
  }
  return { truncated, partial };
}

function note(name: string, items: readonly unknown[], kept: number): string {
  return `${name}: ${kept} of ${items.length} shown (results are capped at ${RESULT_MAX_BYTES / 1024} KB); ask for fewer or narrower.`;
}

/** A tool's answer as MCP carries it: the summary, then the JSON (capped). */
export function toolResult(answer: ToolAnswer): CallToolResult {
  const data = capped(answer.data);
  return {
    content: [
      { type: 'text', text: answer.summary },
      { type: 'text', text: JSON.stringify(data) },
    ],
  };
}

/**
 * A refusal or failure as a tool error: `<code>: <message>`, the fields' problems after it, and the
 * scope a `missing_scope` lacks. Anything that is not the catalog's is `internal_error`, its detail
 * given to `log` (stderr or the server's log), never to the caller.
 */
export function toolError(err: unknown, log: (err: unknown) => void): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: errorText(err, log) }] };
}

/** The text of an error as tools and resources say it. */
export function errorText(err: unknown, log: (err: unknown) => void): string {
  if (!(err instanceof AppError)) {
    log(err);
    return 'internal_error: The tool failed; the server logged why.';
  }
  let text = `${err.code}: ${err.message}`;
  if (err.requiredScope) text += ` Required scope: ${err.requiredScope}.`;
  if (err.details)
    text += ` ${Object.entries(err.details)
      .map(([field, problems]) => `${field}: ${problems.join('; ')}`)
      .join('. ')}`;
  return text;
}
