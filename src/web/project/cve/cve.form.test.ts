import { describe, expect, it } from 'vitest';
import { readTriageForm, tagsOf } from './cve.form.ts';

describe('readTriageForm', () => {
  it('reads a status from the list and an assignee, trimmed', () => {
    expect(readTriageForm({ status: 'resolved', assignee: ' bob@example.org ' })).toEqual({
      values: { status: 'resolved', assignee: 'bob@example.org' },
      patch: { status: 'resolved', assignee: 'bob@example.org' },
      errors: undefined,
    });
  });

  it('clears the status and the assignee when they are empty or missing', () => {
    expect(readTriageForm({ status: '', assignee: '' }).patch).toEqual({ status: null, assignee: null });
    expect(readTriageForm({}).patch).toEqual({ status: null, assignee: null });
  });

  it('refuses a status not in the list under status, keeping what was sent to show again', () => {
    const form = readTriageForm({ status: 'done', assignee: 'bob@example.org' });
    expect(form.errors).toEqual({ status: ['Choose a status from the list.'] });
    expect(form.values).toEqual({ status: 'done', assignee: 'bob@example.org' });
  });

  it('reads a status sent twice as none (not a string)', () => {
    expect(readTriageForm({ status: ['resolved', 'resolved'] }).patch.status).toBeNull();
  });
});

describe('tagsOf', () => {
  it('splits tags on blanks and commas, dropping empty ones', () => {
    expect(tagsOf('patched-2025, needs.vendor  vpn')).toEqual(['patched-2025', 'needs.vendor', 'vpn']);
    expect(tagsOf('  ')).toEqual([]);
  });
});
