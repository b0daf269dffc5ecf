/**
 * The links of notification emails: confirm an address (double opt-in) and unsubscribe. A GET shows
 * a page with one button and changes nothing (mail scanners follow links); the POST acts. The
 * unsubscribe POST is also RFC 8058's one-click target (`List-Unsubscribe=One-Click`, sent by the
 * mail client with the token in the URL).
 *
 * Both are authorized by the link's own secret token, not by a session, so they take no CSRF token
 * (`config.linkToken`): a forged request would need the token, which is all the authority there is.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { WebOptions } from '../kit/context.ts';
import { queryText, field } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import { EmailLinkDone, EmailLinkQuestion, type EmailLinkText } from './email-links.view.tsx';

const CONFIRM: EmailLinkText = {
  title: 'Confirm notifications',
  question: 'Receive vulntrack notifications at this address?',
  button: 'Confirm',
  doneTitle: 'Confirmed',
  done: 'This address will receive the notifications.',
};

const UNSUBSCRIBE: EmailLinkText = {
  title: 'Unsubscribe',
  question: 'Stop vulntrack notifications to this address?',
  button: 'Unsubscribe',
  doneTitle: 'Unsubscribed',
  done: 'This address will receive no more notifications.',
};

const INVALID = 'This link is not valid (any more). Nothing was changed.';

export const emailLinkRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const config = { public: true, linkToken: true };
  const links = [
    {
      path: '/notifications/confirm',
      text: CONFIRM,
      act: (t: string) => services.notifications.confirmEmail(t),
    },
    {
      path: '/notifications/unsubscribe',
      text: UNSUBSCRIBE,
      act: (t: string) => services.notifications.unsubscribe(t),
    },
  ];

  for (const { path, text, act } of links) {
    app.get(path, { config }, async (request, reply) =>
      sendPage(
        reply,
        <EmailLinkQuestion
          ctx={request.page}
          text={text}
          action={path}
          token={queryText(request.query, 'token')}
        />,
      ),
    );
    app.post(path, { config }, async (request, reply) => {
      // The page's form sends the token in its body; the one-click POST keeps it in the URL.
      const token = field(request.body, 'token') || queryText(request.query, 'token');
      if (!(await act(token))) throw new AppError('not_found', INVALID);
      return sendPage(reply, <EmailLinkDone ctx={request.page} text={text} />);
    });
  }
};
