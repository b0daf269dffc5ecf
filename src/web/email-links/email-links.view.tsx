/** The pages of a notification email's links: a question with one button, then what was done. */
import type { PageContext } from '../kit/context.ts';
import { AuthPage, Csrf } from '../kit/layout.tsx';

/** What a link asks before it acts, and what it says once done. */
export interface EmailLinkText {
  title: string;
  question: string;
  button: string;
  doneTitle: string;
  done: string;
}

/** The question of a link, with the one button that acts (a GET changes nothing: mail scanners follow links). */
export function EmailLinkQuestion({
  ctx,
  text,
  action,
  token,
}: {
  ctx: PageContext;
  text: EmailLinkText;
  action: string;
  token: string;
}) {
  return (
    <AuthPage ctx={ctx} title={text.title}>
      <p>{text.question}</p>
      <form method="post" action={action}>
        <Csrf ctx={ctx} />
        <input type="hidden" name="token" value={token} />
        <button type="submit" class="btn-primary">
          {text.button}
        </button>
      </form>
    </AuthPage>
  );
}

/** What the link did. */
export function EmailLinkDone({ ctx, text }: { ctx: PageContext; text: EmailLinkText }) {
  return (
    <AuthPage ctx={ctx} title={text.doneTitle}>
      <p role="status">{text.done}</p>
    </AuthPage>
  );
}
