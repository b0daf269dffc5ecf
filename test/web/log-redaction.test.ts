import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { createLogger, servicesFor } from '../../src/main.ts';
import { buildApp } from '../../src/server.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

describeEachDatabase('logs: no secret of a URL at any level', (use) => {
  const lines: string[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    const config = parseConfig({ LOG_LEVEL: 'trace' });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const services = servicesFor(config, use(), 'test-secret-'.padEnd(40, 'x'));
    app = await buildApp({ services, logger: createLogger(config, sink) });
  });
  afterAll(() => app.close());

  describe('access lines at trace level', () => {
    it('name the page of a feed, a one-time link or an email link, never its secret', async () => {
      const secrets = [
        'FeedSecret0123456789',
        'SetupToken0123456789',
        'ResetToken0123456789',
        'InviteToken012345678',
        'MailToken0123456789',
      ];
      for (const url of [
        `/feeds/${secrets[0]}.atom`,
        `/setup/${secrets[1]}`,
        `/password-reset/${secrets[2]}`,
        `/invitations/${secrets[3]}`,
        `/notifications/unsubscribe?token=${secrets[4]}`,
      ])
        await app.inject({ url });
      const log = lines.join('');
      expect(log).toContain('"url":"/feeds/[redacted].atom"');
      expect(log).toContain('"url":"/notifications/unsubscribe?token=[redacted]"');
      for (const secret of secrets) expect(log).not.toContain(secret);
    });
  });
});
