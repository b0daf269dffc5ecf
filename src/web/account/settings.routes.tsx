/** `/account`: the signed-in user's display settings (time zone, date format, theme). */
import type { FastifyPluginAsync } from 'fastify';
import type { WebUser } from '../../domain/user.ts';
import { doneText, field, formErrorsOf, formStatusOf } from '../kit/input.ts';
import { sendPage } from '../kit/layout.tsx';
import type { WebOptions } from '../kit/context.ts';
import { SettingsPage, type SettingsValues } from './settings.view.tsx';

/** Fixed notices by `?done=` code (never text from the request). */
const DONE: Record<string, string> = { settings: 'Your settings are saved.' };

const settingsOf = (user: WebUser): SettingsValues => ({
  time_zone: user.timeZone,
  date_format: user.dateFormat,
  theme: user.theme,
});

export const settingsRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  app.get('/account', async (request, reply) =>
    sendPage(
      reply,
      <SettingsPage
        ctx={request.page}
        values={settingsOf(request.page.user!)}
        notice={doneText(DONE, request.query)}
      />,
    ),
  );

  app.post('/account', async (request, reply) => {
    const values = {
      time_zone: field(request.body, 'time_zone'),
      date_format: field(request.body, 'date_format'),
      theme: field(request.body, 'theme'),
    };
    try {
      await services.accounts.updateSettings(request.page.user!.id, {
        timeZone: values.time_zone,
        dateFormat: values.date_format,
        theme: values.theme,
      });
      return reply.redirect('/account?done=settings', 303);
    } catch (err) {
      const errors = formErrorsOf(err);
      return sendPage(
        reply,
        <SettingsPage ctx={request.page} values={values} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
  });
};
