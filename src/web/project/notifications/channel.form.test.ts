import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/errors.ts';
import {
  channelErrors,
  configurationOf,
  createInputOf,
  currentFormOf,
  enabledOf,
  formOf,
  isType,
  newFormOf,
  parseHeaders,
  patchOf,
  type ChannelForm,
  type ChannelType,
  type NotificationRow,
} from './channel.form.ts';

/** The AppError `fn` throws (fails when it throws nothing, or something else). */
function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('nothing was thrown');
}

const form = (type: ChannelType, typed: Partial<ChannelForm> = {}): ChannelForm => ({
  type,
  name: 'alerts',
  email: '',
  url: '',
  headers: '',
  webhook_url: '',
  ...typed,
});

function row(type: ChannelType, configuration: Record<string, unknown>): NotificationRow {
  const at = new Date('2026-01-02T03:04:05Z');
  return {
    id: '00000000-0000-4000-8000-000000000001',
    project_id: '00000000-0000-4000-8000-000000000002',
    name: 'security-team',
    type,
    is_enabled: true,
    configuration,
    secrets: 'sealed',
    email_status: type === 'email' ? 'confirmed' : null,
    created_at: at,
    updated_at: at,
  };
}

describe('isType', () => {
  it('accepts the four channels and nothing else', () => {
    expect(['email', 'webhook', 'slack', 'teams'].every(isType)).toBe(true);
    expect(isType('sms')).toBe(false);
    expect(isType('')).toBe(false);
    expect(isType('toString')).toBe(false);
  });
});

describe('formOf', () => {
  it('trims every field but the header lines, which keep their line breaks', () => {
    const typed = formOf(
      {
        name: ' alerts ',
        email: ' a@acme.example ',
        url: ' https://x.example ',
        headers: ' A: 1\n',
        webhook_url: ' u ',
      },
      'webhook',
    );
    expect(typed).toEqual({
      type: 'webhook',
      name: 'alerts',
      email: 'a@acme.example',
      url: 'https://x.example',
      headers: ' A: 1\n',
      webhook_url: 'u',
    });
  });

  it('reads a missing or repeated field as blank', () => {
    expect(formOf({ name: ['a', 'b'] }, 'slack')).toEqual(form('slack', { name: '' }));
    expect(formOf(undefined, 'email')).toEqual(form('email', { name: '' }));
  });
});

describe('newFormOf', () => {
  it('takes the channel of the type field', () => {
    expect(newFormOf({ type: 'teams', webhook_url: 'https://t.example/x' })).toMatchObject({
      type: 'teams',
      webhook_url: 'https://t.example/x',
    });
  });

  it('shows an unknown or missing type as an email form', () => {
    expect(newFormOf({ type: 'sms', email: 'a@acme.example' })).toMatchObject({
      type: 'email',
      email: 'a@acme.example',
    });
    expect(newFormOf({}).type).toBe('email');
  });
});

describe('currentFormOf', () => {
  it('fills in the name and an email notification’s address', () => {
    expect(currentFormOf(row('email', { email: 'team@acme.example' }))).toEqual(
      form('email', { name: 'security-team', email: 'team@acme.example' }),
    );
  });

  it('leaves the secret fields of a webhook or a chat blank', () => {
    const hook = row('webhook', { host: 'hooks.acme.example', header_names: ['X-Key'] });
    expect(currentFormOf(hook)).toEqual(form('webhook', { name: 'security-team' }));
    const slack = row('slack', { webhook_url: 'https://hooks.slack.com/services/***' });
    expect(currentFormOf(slack)).toEqual(form('slack', { name: 'security-team' }));
  });
});

describe('parseHeaders', () => {
  it('reads one trimmed "Name: value" per line, a value keeping its own colons', () => {
    expect(parseHeaders('Authorization: Bearer abc\r\n  X-Trace :  a:b:c  ')).toEqual({
      Authorization: 'Bearer abc',
      'X-Trace': 'a:b:c',
    });
  });

  it('skips blank lines and reads no text as no headers', () => {
    expect(parseHeaders('\nA: 1\n   \nB: 2\n')).toEqual({ A: '1', B: '2' });
    expect(parseHeaders('')).toEqual({});
  });

  it('keeps the last value of a name given twice', () => {
    expect(parseHeaders('A: 1\nA: 2')).toEqual({ A: '2' });
  });

  it('refuses a line without a name before its colon, beside the headers field, counting the lines that are not blank', () => {
    const noColon = refusal(() => parseHeaders('A: 1\n\nnot a header'));
    expect(noColon.code).toBe('validation_error');
    expect(noColon.details).toEqual({ headers: ['Line 2 is not "Name: value".'] });
    expect(refusal(() => parseHeaders(': value')).details).toEqual({
      headers: ['Line 1 is not "Name: value".'],
    });
  });
});

describe('configurationOf', () => {
  it('sends an email notification’s address, even blank (the service says what is wrong)', () => {
    expect(configurationOf(form('email', { email: 'a@acme.example' }), false)).toEqual({
      email: 'a@acme.example',
    });
    expect(configurationOf(form('email'), true)).toEqual({ email: '' });
  });

  it('sends a webhook’s URL, with its headers only when some were typed', () => {
    expect(configurationOf(form('webhook', { url: 'https://x.example' }), false)).toEqual({
      url: 'https://x.example',
    });
    expect(configurationOf(form('webhook', { url: 'https://x.example', headers: 'A: 1' }), false)).toEqual({
      url: 'https://x.example',
      headers: { A: '1' },
    });
  });

  it('keeps a webhook’s secret configuration when an edit leaves the URL and headers blank', () => {
    expect(configurationOf(form('webhook', { headers: '  \n' }), true)).toBeUndefined();
  });

  it('asks for the URL again when an edit changes only the headers', () => {
    const refused = refusal(() => configurationOf(form('webhook', { headers: 'A: 1' }), true));
    expect(refused.details).toEqual({
      url: ['Enter the URL again to change the headers (the current one is secret).'],
    });
  });

  it('refuses bad header lines of a webhook', () => {
    const refused = refusal(() =>
      configurationOf(form('webhook', { url: 'https://x.example', headers: 'x' }), false),
    );
    expect(refused.details).toEqual({ headers: ['Line 1 is not "Name: value".'] });
  });

  it('sends a chat’s webhook URL, kept when an edit leaves it blank', () => {
    for (const type of ['slack', 'teams'] as const) {
      expect(configurationOf(form(type, { webhook_url: 'https://c.example/x' }), false)).toEqual({
        webhook_url: 'https://c.example/x',
      });
      expect(configurationOf(form(type), false)).toEqual({ webhook_url: '' });
      expect(configurationOf(form(type), true)).toBeUndefined();
    }
  });
});

describe('createInputOf', () => {
  it('makes the service input of the typed channel', () => {
    const body = { type: 'slack', name: 'chat', webhook_url: 'https://hooks.slack.com/services/a' };
    expect(createInputOf(body, newFormOf(body))).toEqual({
      name: 'chat',
      type: 'slack',
      configuration: { webhook_url: 'https://hooks.slack.com/services/a' },
    });
  });

  it('asks to choose a type when none of the channels was sent', () => {
    const body = { type: 'sms', name: 'x', email: 'a@acme.example' };
    expect(refusal(() => createInputOf(body, newFormOf(body))).details).toEqual({
      _form: ['Choose a notification type.'],
    });
  });
});

describe('patchOf', () => {
  it('changes only the name when the secret fields are left blank', () => {
    expect(patchOf(form('teams', { name: 'renamed' }))).toEqual({ name: 'renamed' });
  });

  it('changes the configuration too when it was typed', () => {
    expect(patchOf(form('webhook', { url: 'https://x.example', headers: 'A: 1' }))).toEqual({
      name: 'alerts',
      configuration: { url: 'https://x.example', headers: { A: '1' } },
    });
  });
});

describe('enabledOf', () => {
  it('reads the Enable and Disable buttons', () => {
    expect(enabledOf({ enabled: 'true' })).toBe(true);
    expect(enabledOf({ enabled: 'false' })).toBe(false);
  });

  it('refuses anything else', () => {
    for (const body of [{ enabled: 'yes' }, {}, { enabled: ['true', 'false'] }]) {
      const refused = refusal(() => enabledOf(body));
      expect(refused.code).toBe('validation_error');
      expect(refused.message).toBe('Choose to enable or to disable the notification.');
    }
  });
});

describe('channelErrors', () => {
  it('places each configuration problem beside the field it starts with, as a sentence', () => {
    const err = new AppError('validation_error', undefined, {
      name: ['This name is taken.'],
      configuration: [
        'url: This URL is not allowed: 10.0.0.1 is a private address',
        'email must be an email address',
        'webhook_url: The URL is not a valid absolute URL.',
        'headers: webhook-id is set by vulntrack!',
      ],
    });
    expect(channelErrors(err)).toEqual({
      name: ['This name is taken.'],
      url: ['This URL is not allowed: 10.0.0.1 is a private address.'],
      email: ['Email must be an email address.'],
      webhook_url: ['The URL is not a valid absolute URL.'],
      headers: ['Webhook-id is set by vulntrack!'],
    });
  });

  it('shows a problem naming no field above the form', () => {
    const err = new AppError('validation_error', undefined, { configuration: ['unknown key "x"'] });
    expect(channelErrors(err)).toEqual({ _form: ['Unknown key "x".'] });
  });

  it('does not take a field name that only begins a longer word', () => {
    const err = new AppError('validation_error', undefined, { configuration: ['urls are limited'] });
    expect(channelErrors(err)).toEqual({ _form: ['Urls are limited.'] });
  });

  it('passes other validation errors and a conflict through as they are', () => {
    expect(channelErrors(new AppError('validation_error', undefined, { url: ['Enter it.'] }))).toEqual({
      url: ['Enter it.'],
    });
    expect(channelErrors(new AppError('conflict', 'Set its URL again first.'))).toEqual({
      _form: ['Set its URL again first.'],
    });
  });

  it('rethrows what is not about the form', () => {
    const missing = new AppError('not_found');
    expect(() => channelErrors(missing)).toThrow(missing);
    const bug = new TypeError('boom');
    expect(() => channelErrors(bug)).toThrow(bug);
  });
});
