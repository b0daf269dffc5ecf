/** The page shown for an error: the status and one sentence. */
import { Layout, type PageContext } from '../page.tsx';

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
