/**
 * Reading a request's input: form fields and query values as strings (never `undefined` or an
 * array where one value is expected), checkbox lists, the page number, the `?done=` notice, and a
 * service's error as a form's messages.
 */
import type { FastifyReply } from 'fastify';
import { AppError, RetryLaterError, type ErrorCode } from '../../domain/errors.ts';

/** A form field as a string ('' when absent or not a string). */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A form field sent zero, one or several times (checkboxes). */
export function fields(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A `page` query value: a whole number from 1, else 1. */
export function pageNumber(query: unknown): number {
  const raw = (query as { page?: unknown } | undefined)?.page;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return n >= 1 ? n : 1;
}

/**
 * A query value as one trimmed string ('' when absent; the first when repeated), cut to `max`
 * characters when given.
 */
export function queryText(query: unknown, name: string, max?: number): string {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string') return '';
  const trimmed = first.trim();
  return max === undefined ? trimmed : trimmed.slice(0, max);
}

/**
 * The notice of `?done=<code>` after a successful form: the page's own fixed text for that code,
 * never text from the request (an unknown code, or one of Object's own names, shows nothing).
 */
export function doneText(texts: Readonly<Record<string, string>>, query: unknown): string | undefined {
  const code = (query as { done?: unknown } | undefined)?.done;
  return typeof code === 'string' && Object.hasOwn(texts, code) ? texts[code] : undefined;
}

/** A form's errors by field name (`_form` for the form as a whole). */
export type FormErrors = Record<string, string[]>;

/**
 * The one error policy of forms: what a service refused about the input is shown on the form again,
 * each message beside its field (a validation error, 400), or above it (a conflict such as a name
 * already taken, 409; too many attempts, 429; and any code the caller lists in `also`). Anything
 * else is not about the form and is rethrown, so the page of that error is shown with its own
 * status (404 for what the user cannot see, 403 for what they may not do, 500 for a failure).
 * Answer with `formStatusOf(err, reply)`.
 */
export function formErrorsOf(err: unknown, also: readonly ErrorCode[] = []): FormErrors {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'validation_error') return err.details ? { ...err.details } : { _form: [err.message] };
  if (FORM_CODES.includes(err.code) || also.includes(err.code)) return { _form: [err.message] };
  throw err;
}

const FORM_CODES: readonly ErrorCode[] = ['conflict', 'rate_limited'];

/**
 * The status of a form shown again with `formErrorsOf(err)`: the error's own (400, 409, 429, …),
 * with `Retry-After` on `reply` when the service said when to try again (too many attempts).
 */
export function formStatusOf(err: unknown, reply: Pick<FastifyReply, 'header'>): number {
  if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
  return err instanceof AppError ? err.status : 400;
}
