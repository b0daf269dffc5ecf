/**
 * The links of notification emails: confirm an address (double opt-in) and unsubscribe. A GET shows
 * a page with one button and changes nothing (mail scanners follow links); the POST acts. The
 * unsubscribe POST is also RFC 8058's one-click target (`List-Unsubscribe=One-Click`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../services/services.ts';
import { escapeHtml } from '../notifications/channels/email/email-message.ts';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  `<meta name="viewport" content="width=device-width"></head><body style="font-family:sans-serif;max-width:40em;margin:3em auto">` +
  `<h1>${escapeHtml(title)}</h1>${body}</body></html>`;

const form = (action: string, token: string, label: string) =>
  `<form method="post" action="${action}"><input type="hidden" name="token" value="${escapeHtml(token)}">` +
  `<button type="submit">${escapeHtml(label)}</button></form>`;

const tokenOf = (query: unknown, body: unknown): string => {
  const q = (query ?? {}) as { token?: unknown };
  const b = (typeof body === 'object' && body ? body : {}) as { token?: unknown };
  const token = b.token ?? q.token;
  return typeof token === 'string' ? token : '';
};

export const emailLinkRoutes: FastifyPluginAsync<{ services: Pick<Services, 'notifications'> }> = async (
  app,
  { services },
) => {
  // Forms post application/x-www-form-urlencoded; a tiny parser keeps the app free of a form plugin.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  const invalid = page('Link not valid', '<p>This link is not valid (any more). Nothing was changed.</p>');
  const schema = { hide: true };
  const links = [
    {
      path: '/notifications/confirm',
      ask: ['Confirm notifications', '<p>Receive vulntrack notifications at this address?</p>', 'Confirm'],
      done: ['Confirmed', '<p>This address will receive the notifications.</p>'],
      act: (token: string) => services.notifications.confirmEmail(token),
    },
    {
      path: '/notifications/unsubscribe',
      ask: ['Unsubscribe', '<p>Stop vulntrack notifications to this address?</p>', 'Unsubscribe'],
      done: ['Unsubscribed', '<p>This address will receive no more notifications.</p>'],
      act: (token: string) => services.notifications.unsubscribe(token),
    },
  ] as const;

  for (const link of links) {
    const [askTitle, askBody, button] = link.ask;
    app.get(link.path, { schema }, async (request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .send(page(askTitle, `${askBody}${form(link.path, tokenOf(request.query, undefined), button)}`)),
    );
    app.post(link.path, { schema }, async (request, reply) => {
      const ok = await link.act(tokenOf(request.query, request.body));
      return reply
        .status(ok ? 200 : 404)
        .type('text/html; charset=utf-8')
        .send(ok ? page(link.done[0], link.done[1]) : invalid);
    });
  }
};
