/**
 * Reading a request's input: form fields and query values as strings (never `undefined` or an
 * array where one value is expected), checkbox lists, the page number, the `?done=` notice, and a
 * service's error as a form's messages.
 */
import { AppError, type ErrorDetails } from '../../domain/errors.ts';

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

/** The field errors an AppError carries (a validation error), or one error for the whole form. */
export function formErrorsOf(err: unknown): FormErrors {
  if (err instanceof AppError) {
    if (err.code === 'validation_error' && err.details) return detailsToErrors(err.details);
    return { _form: [err.message] };
  }
  throw err;
}

const detailsToErrors = (details: ErrorDetails): FormErrors => ({ ...details });
