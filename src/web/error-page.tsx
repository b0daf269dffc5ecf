/** The page shown for an error: the status and one sentence, never a stack trace. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOG, RetryLaterError } from '../domain/errors.ts';
import { loadAssetsOnce } from './kit/assets.ts';
import type { PageContext } from './kit/context.ts';
import { dateStyleOf, Layout, sendPage } from './kit/layout.tsx';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Not allowed',
  413: 'Too large',
  429: 'Slow down',
  500: 'Something went wrong',
  503: 'Not available right now',
};

export function ErrorPage({ ctx, status, message }: { ctx: PageContext; status: number; message: string }) {
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'That did not work');
  return (
    <Layout ctx={ctx} title={title} bare={!ctx.user}>
      <div class="card auth-card">
        <h1>{title}</h1>
        <p>{message}</p>
        <p class="muted small">Error {status}</p>
        <p>
          <a href={ctx.user ? '/' : '/login'}>{ctx.user ? 'Back to the start page' : 'Sign in'}</a>
        </p>
      </div>
    </Layout>
  );
}

/** The page of an error: its status and a sentence, never a stack trace. */
export function renderError(err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let message = 'Something went wrong on our side. It has been logged; please try again.';
  if (err instanceof AppError) {
    status = err.status;
    // A page's own sentence when it has one (an expired link, a CVE not in the catalog).
    message =
      err.code === 'not_found' && err.message === ERROR_CATALOG.not_found.message
        ? 'There is nothing here, or you cannot see it.'
        : err.message;
    if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterSeconds));
  } else if (err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET') {
    status = 403;
    message = 'This form has expired or was not sent from this site. Go back, reload the page and try again.';
  } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === 'FST_REQ_FILE_TOO_LARGE') {
    status = 413;
    message = 'What you sent is too large.';
  } else if (err.code === 'FST_FILES_LIMIT') {
    status = 413;
    message = 'This form takes no file, or only one.';
  } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    status = err.statusCode;
    message = 'The request was not understood.';
  }
  if (status >= 500) request.log.error({ err }, 'page failed');
  const ctx = request.page ?? fallbackContext(request);
  return sendPage(reply, ErrorPage({ ctx, status, message }), status);
}

/** The 404 page, for a path no route serves (the app's not-found handler sends people here). */
export function renderNotFound(request: FastifyRequest, reply: FastifyReply) {
  return renderError(new AppError('not_found'), request, reply);
}

/** A context for an error raised before the page hook ran (a bad URL, a body too large). */
function fallbackContext(request: FastifyRequest): PageContext {
  return {
    user: undefined,
    organizations: [],
    currentOrg: undefined,
    csrfToken: '',
    assets: loadAssetsOnce(),
    url: request.url,
    dateStyle: dateStyleOf(undefined),
  };
}
