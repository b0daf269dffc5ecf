/**
 * The notification forms as typed and as the service takes them: one field per channel field (webhook
 * headers as `Name: value` lines), the secret fields of an edit left blank to keep them, and the
 * service's configuration problems placed beside the field they name.
 */
import { AppError } from '../../../domain/errors.ts';
import type {
  NotificationInput,
  NotificationPatch,
  NotificationService,
} from '../../../services/notification.service.ts';
import { field, formErrorsOf, type FormErrors } from '../../kit/input.ts';

/** A notification as the service hands it out. */
export type NotificationRow = Awaited<ReturnType<NotificationService['get']>>;
/** The channel of a notification: email, webhook, Slack or Teams. */
export type ChannelType = NotificationRow['type'];

/** The channels a project may notify through, in the order the form offers them. */
export const CHANNEL_TYPES: readonly ChannelType[] = ['email', 'webhook', 'slack', 'teams'];

/** Whether a typed value is one of the channels. */
export const isType = (value: string): value is ChannelType =>
  (CHANNEL_TYPES as readonly string[]).includes(value);

/** The form as typed: one field per channel field (`headers` as `Name: value` lines). */
export interface ChannelForm {
  type: ChannelType;
  name: string;
  email: string;
  url: string;
  headers: string;
  webhook_url: string;
}

/** The fields of the channel configuration, beside which the service's problems are shown. */
export const CONFIG_FIELDS = ['email', 'url', 'headers', 'webhook_url'] as const;

/** A form body as typed, for a channel of `type` (trimmed, except the header lines). */
export function formOf(body: unknown, type: ChannelType): ChannelForm {
  return {
    type,
    name: field(body, 'name').trim(),
    email: field(body, 'email').trim(),
    url: field(body, 'url').trim(),
    headers: field(body, 'headers'),
    webhook_url: field(body, 'webhook_url').trim(),
  };
}

/** The create form as typed: its `type` field's channel, email when that is not one. */
export function newFormOf(body: unknown): ChannelForm {
  const asked = field(body, 'type');
  return formOf(body, isType(asked) ? asked : 'email');
}

/** The edit form of a notification before anything is typed: its name, and its address if an email (secrets are never shown). */
export function currentFormOf(n: NotificationRow): ChannelForm {
  return {
    type: n.type,
    name: n.name,
    email: n.type === 'email' ? String(n.configuration.email ?? '') : '',
    url: '',
    headers: '',
    webhook_url: '',
  };
}

/** `Name: value` lines into headers; a 400 beside the field for a line that is not one. */
export function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw new AppError('validation_error', undefined, {
        headers: [`Line ${i + 1} is not "Name: value".`],
      });
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return headers;
}

/** The channel configuration of a form; undefined when an edit leaves the secret fields blank (kept). */
export function configurationOf(form: ChannelForm, editing: boolean): Record<string, unknown> | undefined {
  switch (form.type) {
    case 'email':
      return { email: form.email };
    case 'webhook': {
      if (editing && !form.url && !form.headers.trim()) return undefined;
      if (editing && !form.url)
        throw new AppError('validation_error', undefined, {
          url: ['Enter the URL again to change the headers (the current one is secret).'],
        });
      const headers = parseHeaders(form.headers);
      return { url: form.url, ...(Object.keys(headers).length ? { headers } : {}) };
    }
    case 'slack':
    case 'teams':
      if (editing && !form.webhook_url) return undefined;
      return { webhook_url: form.webhook_url };
  }
}

/** The service input of the create form (`form` is `newFormOf(body)`); a 400 when no channel was chosen. */
export function createInputOf(body: unknown, form: ChannelForm): NotificationInput {
  if (!isType(field(body, 'type')))
    throw new AppError('validation_error', undefined, { _form: ['Choose a notification type.'] });
  return { name: form.name, type: form.type, configuration: configurationOf(form, false) ?? {} };
}

/** The service patch of the edit form: the name, and the configuration unless its secrets were left blank. */
export function patchOf(form: ChannelForm): NotificationPatch {
  const configuration = configurationOf(form, true);
  return { name: form.name, ...(configuration ? { configuration } : {}) };
}

/** The Enable or Disable button's choice; a 400 for anything else. */
export function enabledOf(body: unknown): boolean {
  const enabled = field(body, 'enabled');
  if (enabled !== 'true' && enabled !== 'false')
    throw new AppError('validation_error', 'Choose to enable or to disable the notification.');
  return enabled === 'true';
}

/**
 * The service's errors beside their fields: its configuration problems start with the field's name
 * (`url: This URL is not allowed…`, `email must be an email address`).
 */
export function channelErrors(err: unknown): FormErrors {
  const errors = formErrorsOf(err);
  const problems = errors.configuration;
  if (!problems) return errors;
  const out: FormErrors = { ...errors };
  delete out.configuration;
  for (const problem of problems) {
    const key = CONFIG_FIELDS.find((k) => problem.startsWith(`${k}:`) || problem.startsWith(`${k} `));
    const text = key ? problem.replace(new RegExp(`^${key}:\\s*`), '') : problem;
    const sentence = text.charAt(0).toUpperCase() + text.slice(1);
    (out[key ?? '_form'] ??= []).push(/[.!?]$/.test(sentence) ? sentence : `${sentence}.`);
  }
  return out;
}
