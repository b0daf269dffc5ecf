import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.ts';
import { capped, errorText, RESULT_MAX_BYTES, toolResult } from './results.ts';

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('capped', () => {
  it('leaves a result under the cap as it is', () => {
    const data = { count: 2, cves: [{ id: 'a' }, { id: 'b' }] };
    expect(capped(data)).toBe(data);
  });

  it('cuts the longest list to fit, keeping its first items, and says how many are shown', () => {
    const cves = Array.from({ length: 2000 }, (_, i) => ({
      cve_id: `CVE-2024-${10000 + i}`,
      text: 'x'.repeat(100),
    }));
    const out = capped({ count: 2000, cves, next_cursor: 'abc' });
    expect(size(out)).toBeLessThanOrEqual(RESULT_MAX_BYTES);
    const kept = out.cves as typeof cves;
    expect(kept.length).toBeGreaterThan(400);
    expect(kept).toEqual(cves.slice(0, kept.length));
    expect(out.truncated).toBe(
      `cves: ${kept.length} of 2000 shown (results are capped at 64 KB); ask for fewer or narrower.`,
    );
    expect(out).toMatchObject({ count: 2000, next_cursor: 'abc' });
    // As many as fit: one more would not.
    expect(size({ ...out, cves: cves.slice(0, kept.length + 1) })).toBeGreaterThan(RESULT_MAX_BYTES);
  });

  it('shortens a single text too long for the cap', () => {
    const out = capped({ description: 'é'.repeat(100_000) });
    expect(size(out)).toBeLessThanOrEqual(RESULT_MAX_BYTES);
    expect(out.truncated).toMatch(/only its start fits/);
  });
});

describe('errorText', () => {
  it('starts with the catalog code, then the message, the scope and the fields', () => {
    const log = () => {};
    expect(errorText(new AppError('not_found'), log)).toBe('not_found: Not found.');
    expect(
      errorText(
        new AppError('missing_scope', 'This token lacks the scope tracker:read.', undefined, 'tracker:read'),
        log,
      ),
    ).toBe('missing_scope: This token lacks the scope tracker:read. Required scope: tracker:read.');
    expect(errorText(new AppError('validation_error', undefined, { cursor: ['not a cursor'] }), log)).toMatch(
      /^validation_error: .* cursor: not a cursor$/,
    );
  });

  it('never shows what failed unexpectedly, and hands it to the log', () => {
    const logged: unknown[] = [];
    const err = new Error('connection string postgres://user:secret@db');
    expect(errorText(err, (e) => logged.push(e))).toBe(
      'internal_error: The tool failed; the server logged why.',
    );
    expect(logged).toEqual([err]);
  });
});

describe('toolResult', () => {
  it('gives the summary, then the JSON', () => {
    expect(toolResult({ summary: 'One CVE.', data: { cve_id: 'CVE-2021-44228' } }).content).toEqual([
      { type: 'text', text: 'One CVE.' },
      { type: 'text', text: '{"cve_id":"CVE-2021-44228"}' },
    ]);
  });
});
