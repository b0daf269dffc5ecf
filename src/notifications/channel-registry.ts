/**
 * The notification channels: one line each. Everything that lists channels reads this: the types
 * the API accepts and shows, the configuration fields of requests and responses, the service's
 * validation, the send targets and the sender. (The database's CHECK on `notification.type` is a
 * migration's: a new channel also needs one, see docs/notifications.md.)
 */
import { Type, type TProperties } from 'typebox';
import type { Channel, ConfiguredChannel } from './channel.ts';
import type { PrivateDestinations } from './outbound.ts';
import { emailChannel } from './channels/email/email.channel.ts';
import { slackChannel } from './channels/slack/slack.channel.ts';
import { teamsChannel } from './channels/teams/teams.channel.ts';
import { webhookChannel } from './channels/webhook/webhook.channel.ts';

export const CHANNELS = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  teams: teamsChannel,
} satisfies Record<string, Channel>;

export type ChannelType = keyof typeof CHANNELS;

/** The channel types, in the registry's order (the order the API documents them in). */
export const CHANNEL_TYPES = Object.keys(CHANNELS) as ChannelType[];

type TargetOf<C> = C extends Channel<infer T> ? T : never;

/** Where one attempt goes: the channel's type and its target (see each channel's `target`). */
export type ChannelTarget = {
  [K in ChannelType]: { type: K } & TargetOf<(typeof CHANNELS)[K]>;
}[ChannelType];

/**
 * Checks `input` for a channel of `type` and splits it into what may be shown and what is sealed;
 * the problems (one sentence each) when it is unusable. `previous` opens the sealed secrets of the
 * configuration it replaces (only called for a valid one).
 */
export function configureChannel(
  type: ChannelType,
  input: Record<string, unknown>,
  previous?: () => Record<string, unknown>,
  allowPrivate: PrivateDestinations = false,
): ConfiguredChannel | { problems: string[] } {
  const channel: Channel = CHANNELS[type];
  const problems: string[] = [];
  const fields = Object.keys(channel.configuration.properties);
  for (const key of Object.keys(input)) {
    if (input[key] !== undefined && !fields.includes(key)) problems.push(`${key} does not apply to ${type}`);
  }
  const configured = channel.configure(input, problems, type, allowPrivate);
  if (problems.length) return { problems };
  if (channel.lastingSecrets) Object.assign(configured.secrets, channel.lastingSecrets(previous?.()));
  return configured;
}

/**
 * Every channel's fields, each optional (the first channel to declare a field names its schema:
 * channels sharing a field share its declaration).
 */
function mergedFields(fieldsOf: (channel: Channel) => TProperties): TProperties {
  const out: TProperties = {};
  for (const type of CHANNEL_TYPES) {
    for (const [key, schema] of Object.entries(fieldsOf(CHANNELS[type]))) out[key] ??= Type.Optional(schema);
  }
  return out;
}

/** What the API shows of a stored configuration of a channel of `type` (never a secret). */
export function shownConfiguration(
  type: ChannelType,
  configuration: Record<string, unknown>,
): Record<string, unknown> {
  const channel: Channel = CHANNELS[type];
  return channel.show ? channel.show(configuration) : { ...configuration };
}

/** The configuration fields of every channel, as a request may carry them. */
export const requestConfigurationFields = (): TProperties => mergedFields((c) => c.configuration.properties);

/** The configuration fields the API shows, of every channel. */
export const shownConfigurationFields = (): TProperties => mergedFields((c) => c.shown);

/** Which configuration each channel takes: "`{email}` (email), `{url, headers?}` (webhook), …". */
export function configurationSummary(): string {
  const byShape = new Map<string, string[]>();
  for (const type of CHANNEL_TYPES) {
    const schema = CHANNELS[type].configuration;
    const required = new Set(schema.required ?? []);
    const keys = Object.keys(schema.properties).map((k) => (required.has(k) ? k : `${k}?`));
    const shape = `\`{${keys.join(', ')}}\``;
    byShape.set(shape, [...(byShape.get(shape) ?? []), type]);
  }
  return [...byShape].map(([shape, types]) => `${shape} (${types.join(', ')})`).join(', ');
}
