import { describe, expect, it } from 'vitest';
import { AppError, RetryLaterError } from '../../domain/errors.ts';
import { doneText, field, fields, formErrorsOf, formStatusOf, pageNumber, queryText } from './input.ts';

/** A reply that keeps the headers set on it. */
const replyOf = () => {
  const headers: Record<string, string> = {};
  return { headers, header: (name: string, value: string) => ((headers[name] = value), undefined as never) };
};

describe('formErrorsOf', () => {
  let reply = replyOf();

  it('places a validation error’s messages beside their fields', () => {
    const err = new AppError('validation_error', undefined, { name: ['is taken'], _form: ['check'] });
    expect(formErrorsOf(err)).toEqual({ name: ['is taken'], _form: ['check'] });
    expect(formStatusOf(err, reply)).toBe(400);
  });

  it('shows a conflict or a rate limit above the form, with its own status', () => {
    const conflict = new AppError('conflict', 'Two-factor sign-in is already on.');
    expect(formErrorsOf(conflict)).toEqual({ _form: ['Two-factor sign-in is already on.'] });
    expect(formStatusOf(conflict, reply)).toBe(409);
    expect(formStatusOf(new AppError('rate_limited'), reply)).toBe(429);
    expect(reply.headers).toEqual({});
  });

  it('says when to try again after too many attempts (Retry-After)', () => {
    reply = replyOf();
    const err = new RetryLaterError(540, 'Too many failed sign-ins. Try again in 9 minutes.');
    expect(formErrorsOf(err)).toEqual({ _form: ['Too many failed sign-ins. Try again in 9 minutes.'] });
    expect(formStatusOf(err, reply)).toBe(429);
    expect(reply.headers).toEqual({ 'Retry-After': '540' });
  });

  it('rethrows what is not about the form, so its own page and status are shown', () => {
    for (const code of ['not_found', 'permission_denied', 'internal_error'] as const) {
      const err = new AppError(code);
      expect(() => formErrorsOf(err)).toThrow(err);
    }
    const bug = new TypeError('x is undefined');
    expect(() => formErrorsOf(bug)).toThrow(bug);
  });

  it('takes another code as a form message when the page lists it', () => {
    const err = new AppError('service_unavailable', 'This server cannot send email.');
    expect(formErrorsOf(err, ['service_unavailable'])).toEqual({ _form: ['This server cannot send email.'] });
    expect(formStatusOf(err, reply)).toBe(503);
  });
});

describe('doneText', () => {
  const texts = { saved: 'The view is saved.' };

  it('gives the page’s own text for a known code', () => {
    expect(doneText(texts, { done: 'saved' })).toBe('The view is saved.');
  });

  it('gives nothing for an unknown code, one of Object’s own names, or a repeated value', () => {
    expect(doneText(texts, { done: 'nope' })).toBeUndefined();
    expect(doneText(texts, { done: 'constructor' })).toBeUndefined();
    expect(doneText(texts, { done: '__proto__' })).toBeUndefined();
    expect(doneText(texts, { done: ['saved', 'saved'] })).toBeUndefined();
    expect(doneText(texts, undefined)).toBeUndefined();
  });
});

describe('input readers', () => {
  it('reads a form field as a string, never undefined or an array', () => {
    expect(field({ name: 'acme' }, 'name')).toBe('acme');
    expect(field({ name: ['a', 'b'] }, 'name')).toBe('');
    expect(field(undefined, 'name')).toBe('');
  });

  it('reads checkboxes sent zero, one or several times', () => {
    expect(fields({ tag: 'a' }, 'tag')).toEqual(['a']);
    expect(fields({ tag: ['a', 7, 'b'] }, 'tag')).toEqual(['a', 'b']);
    expect(fields({}, 'tag')).toEqual([]);
  });

  it('reads a query value trimmed, the first when repeated, cut to a length when asked', () => {
    expect(queryText({ q: '  log4j ' }, 'q')).toBe('log4j');
    expect(queryText({ q: [' xz', 'other'] }, 'q')).toBe('xz');
    expect(queryText({ q: 'x'.repeat(300) }, 'q', 200)).toHaveLength(200);
    expect(queryText({ q: 'x'.repeat(300) }, 'q')).toHaveLength(300);
    expect(queryText({}, 'q')).toBe('');
  });

  it('reads a page number from 1, else 1', () => {
    expect(pageNumber({ page: '3' })).toBe(3);
    expect(pageNumber({ page: '0' })).toBe(1);
    expect(pageNumber({ page: '-2' })).toBe(1);
    expect(pageNumber({ page: '1e9' })).toBe(1);
    expect(pageNumber({})).toBe(1);
  });
});
