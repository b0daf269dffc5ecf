import { describe, expect, it } from 'vitest';
import {
  CHANNEL_TYPES,
  CHANNELS,
  configureChannel,
  shownConfiguration,
  configurationSummary,
  requestConfigurationFields,
  type ChannelType,
} from './channel-registry.ts';

/** A valid configuration of each channel (a new channel must add one: the type requires it). */
const VALID: Record<ChannelType, Record<string, unknown>> = {
  email: { email: 'Alice@Acme.example' },
  webhook: { url: 'https://hooks.acme.example/in?key=s3cret-path', headers: { 'X-Api-Key': 'k-123' } },
  slack: { webhook_url: 'https://hooks.slack.com/services/T0/B0/s3cret' },
  teams: { webhook_url: 'https://acme.webhook.office.com/workflows/s3cret' },
};

/** Every string inside a value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('channel registry', () => {
  describe.each(CHANNEL_TYPES)('%s', (type) => {
    const channel = CHANNELS[type];

    it('configures a valid configuration, and its target reads what was sealed', () => {
      const configured = configureChannel(type, VALID[type]);
      expect(configured).not.toHaveProperty('problems');
      if ('problems' in configured) return;
      const target = channel.target(
        { ...configured, secrets: { ...configured.secrets, email_token: 'tok' } },
        'https://vt.example',
      );
      for (const value of Object.values(target)) expect(value).toBeDefined();
    });

    it('shows none of the secrets it seals', () => {
      const configured = configureChannel(type, VALID[type]);
      if ('problems' in configured) throw new Error(configured.problems.join('; '));
      const shown = strings(configured.configuration).join('\n');
      for (const secret of strings(configured.secrets)) expect(shown).not.toContain(secret);
    });

    it('refuses an empty configuration, naming a required field', () => {
      const result = configureChannel(type, {});
      expect(result).toHaveProperty('problems');
      const required = channel.configuration.required ?? [];
      expect(required.length).toBeGreaterThan(0);
      expect((result as { problems: string[] }).problems.join(' ')).toContain(required[0]);
    });

    it("refuses another channel's field", () => {
      const own = Object.keys(channel.configuration.properties);
      const foreign = Object.keys(requestConfigurationFields()).filter((k) => !own.includes(k));
      for (const field of foreign) {
        const result = configureChannel(type, { ...VALID[type], [field]: 'x' });
        expect(result).toEqual({ problems: [`${field} does not apply to ${type}`] });
      }
    });

    it('shows only fields declared in its response schema, and no secret', () => {
      const configured = configureChannel(type, VALID[type]);
      if ('problems' in configured) throw new Error(configured.problems.join('; '));
      const declared = Object.keys(channel.shown);
      const shown = shownConfiguration(type, configured.configuration);
      for (const key of Object.keys(shown)) expect(declared).toContain(key);
      for (const secret of Object.values(configured.secrets))
        if (typeof secret === 'string' && secret) expect(JSON.stringify(shown)).not.toContain(secret);
    });
  });

  it('declares a field shared by channels the same way in each (the API has one schema per field)', () => {
    const seen = new Map<string, unknown>();
    for (const type of CHANNEL_TYPES) {
      const fields = { ...CHANNELS[type].configuration.properties, ...CHANNELS[type].shown };
      for (const [key, schema] of Object.entries(fields)) {
        if (seen.has(key))
          expect(JSON.stringify(schema), `${type}.${key}`).toBe(JSON.stringify(seen.get(key)));
        else seen.set(key, schema);
      }
    }
  });

  it('summarizes the configuration of each channel for the API description', () => {
    expect(configurationSummary()).toBe(
      '`{email}` (email), `{url, headers?}` (webhook), `{webhook_url}` (slack, teams)',
    );
  });
});
