/**
 * The error catalog: every error code the service answers with, its HTTP status and default message.
 * Services throw AppError; the HTTP layer maps it to `{error: {code, message, details?, required_scope?}}`.
 */
export const ERROR_CATALOG = {
  invalid_token: { status: 401, message: 'Invalid or missing token.' },
  not_found: { status: 404, message: 'Not found.' },
  permission_denied: { status: 403, message: 'You do not have permission to perform this action.' },
  read_only_token: { status: 403, message: 'This token is read-only and cannot perform write operations.' },
  missing_scope: { status: 403, message: 'This token lacks the scope this operation requires.' },
  validation_error: { status: 400, message: 'Validation error.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  payload_too_large: { status: 413, message: 'Request body too large.' },
  unsupported_media_type: { status: 415, message: 'Unsupported media type.' },
  conflict: { status: 409, message: 'Conflict.' },
  rate_limited: { status: 429, message: 'Too many requests.' },
  request_header_too_large: {
    status: 431,
    message: 'The request URL or headers are too large (at most 16 KiB together).',
  },
  internal_error: { status: 500, message: 'Internal server error.' },
  service_unavailable: { status: 503, message: 'Service unavailable.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export type ErrorDetails = Record<string, string[]>;

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetails,
    readonly requiredScope?: string,
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.status = ERROR_CATALOG[code].status;
  }
}

/** A 429 that says when to come back (`Retry-After`). */
export class RetryLaterError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super('rate_limited', message);
  }
}

export const notFound = () => new AppError('not_found');
export const validationError = (details: ErrorDetails) =>
  new AppError('validation_error', undefined, details);
