/**
 * The SSRF guard: address classification, the static URL check, and refusals at send time proven by
 * a real receiver on loopback that must see no connection at all.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChannelSender,
  newSigningSecret,
  validateOutboundUrl,
  type ChannelTarget,
} from '../../src/notifications/channel-sender.ts';
import { classifyAddress } from '../../src/notifications/outbound.ts';
import { parseAllowedHosts } from '../../src/domain/outbound-allow.ts';
import { ConfigError, parseConfig } from '../../src/config.ts';
import { log4shellAlert } from './payloads.ts';
import { startReceiver, type Receiver } from './receivers.ts';

/** A name other than localhost that /etc/hosts maps to a loopback address, if there is one. */
function hostsLoopbackName(): string | undefined {
  const hosts = fs.existsSync('/etc/hosts') ? fs.readFileSync('/etc/hosts', 'utf8') : '';
  for (const line of hosts.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address?.startsWith('127.')) continue;
    const name = names.find((n) => n && !/^localhost(\.|$)/i.test(n) && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return undefined;
}

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.251', 'multicast'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
  ])('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ range, public: false });
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', '127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', '10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', '169.254.169.254', 'linkLocal'],
    ['::ffff:0:7f00:1', '127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'linkLocal'],
    // IPv4-compatible, as a URL's host spells it ([::127.0.0.1] is [::7f00:1]).
    ['::7f00:1', '127.0.0.1', 'loopback'],
    ['::a9fe:a9fe', '169.254.169.254', 'linkLocal'],
    ['::a00:1', '10.0.0.1', 'private'],
  ])('judges the IPv4 address inside %s', (address, inner, range) => {
    expect(classifyAddress(address)).toEqual({ address: inner, range, public: false });
  });

  it('refuses every IPv4-compatible address (::a.b.c.d, deprecated), even of a public IPv4 address', () => {
    expect(classifyAddress('::808:808')).toEqual({
      address: '8.8.8.8',
      range: 'ipv4Compatible',
      public: false,
    });
  });

  it.each([
    ['8.8.8.8'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['151.101.1.69'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'],
  ])('accepts the public address %s', (address) => {
    expect(classifyAddress(address).public).toBe(true);
  });

  it('throws on a string that is not an IP address', () => {
    expect(() => classifyAddress('example.com')).toThrow();
  });
});

describe('validateOutboundUrl', () => {
  it('accepts http and https URLs', () => {
    expect(validateOutboundUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBeUndefined();
    expect(validateOutboundUrl('http://receiver.example:8080/hooks?x=1')).toBeUndefined();
  });

  it.each([
    ['not a url', /not a valid absolute URL/],
    ['/relative/path', /not a valid absolute URL/],
    ['ftp://files.example/x', /http or https \(got ftp\)/],
    ['file:///etc/passwd', /http or https \(got file\)/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:secret@receiver.example/hook', /must not contain credentials/],
    ['https://token@receiver.example/hook', /must not contain credentials/],
    ['https://receiver.example/' + 'a'.repeat(2100), /longer than 2048/],
    ['http://[::127.0.0.1]/hook', /::7f00:1 is a loopback address/],
    ['http://[::169.254.169.254]/latest/meta-data', /::a9fe:a9fe is a link-local address/],
    ['http://[2002:7f00:1::]/hook', /6to4/],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', /teredo/],
  ])('refuses %#: %s', (url, error) => {
    expect(validateOutboundUrl(url)).toMatch(error);
  });
});

describe('OUTBOUND_ALLOW_HOSTS', () => {
  const allow = parseAllowedHosts(
    ' chat.corp.example, *.internal.example ,10.20.0.0/16, fd00::/8, 192.168.1.7 ',
  );

  it('lets a URL name the listed internal hosts and networks, and nothing else', () => {
    for (const url of [
      'https://10.20.3.4/hooks/slack',
      'http://[fd00::12]:8080/hook',
      'http://192.168.1.7/hook',
      'https://chat.corp.example/hook',
    ])
      expect(validateOutboundUrl(url, allow), url).toBeUndefined();
    for (const url of ['https://10.21.0.1/hook', 'http://192.168.1.8/hook', 'http://169.254.169.254/latest'])
      expect(validateOutboundUrl(url, allow), url).toMatch(/OUTBOUND_ALLOW_HOSTS .* OUTBOUND_ALLOW_PRIVATE/);
  });

  it('names both settings when it refuses a private address', () => {
    expect(validateOutboundUrl('http://10.0.0.5/hook')).toBe(
      'This URL is not allowed: 10.0.0.5 is a private address (RFC 1918); notifications may only be sent to public addresses (an operator can allow internal receivers with OUTBOUND_ALLOW_HOSTS (host names and CIDR networks) or all private addresses with OUTBOUND_ALLOW_PRIVATE).',
    );
  });

  it('stops the start with the entry it cannot read', () => {
    expect(() => parseConfig({ OUTBOUND_ALLOW_HOSTS: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => parseConfig({ OUTBOUND_ALLOW_HOSTS: 'chat.corp.example, http://x' })).toThrow(
      /OUTBOUND_ALLOW_HOSTS: "http:\/\/x" is a URL: list its host name alone/,
    );
    expect(parseConfig({ OUTBOUND_ALLOW_HOSTS: '' }).notifications.outboundAllowPrivate).toBe(false);
    expect(
      parseConfig({ OUTBOUND_ALLOW_PRIVATE: 'true', OUTBOUND_ALLOW_HOSTS: '10.0.0.0/8' }).notifications
        .outboundAllowPrivate,
    ).toBe(true);
  });

  it('delivers to a listed loopback receiver, by address and by name, and refuses one not listed', async () => {
    const receiver = await startReceiver();
    try {
      const sender = createChannelSender({
        smtpFrom: 'x@example.com',
        allowPrivate: parseAllowedHosts('127.0.0.1/32, localhost'),
        timeoutMs: 2000,
      });
      const target = (url: string): ChannelTarget => ({
        type: 'webhook',
        url,
        headers: {},
        signingSecret: newSigningSecret(),
      });
      for (const url of [`http://127.0.0.1:${receiver.port}/a`, `http://localhost:${receiver.port}/b`])
        expect(await sender.send(target(url), log4shellAlert()), url).toMatchObject({
          ok: true,
          status_code: 200,
        });
      const other = await sender.send(target(`http://127.0.0.2:${receiver.port}/c`), log4shellAlert());
      expect(other.error).toMatch(/^Refused: 127\.0\.0\.2 is a loopback address; .*OUTBOUND_ALLOW_HOSTS/);
      expect(receiver.requests.map((r) => r.path)).toEqual(['/a', '/b']);
      await sender.close();
    } finally {
      await receiver.close();
    }
  });
});

describe('channel sender SSRF guard', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver.close());

  const secret = newSigningSecret();
  const webhook = (url: string): ChannelTarget => ({
    type: 'webhook',
    url,
    headers: {},
    signingSecret: secret,
  });

  it('refuses loopback, private, link-local and unspecified targets without connecting', async () => {
    const sender = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: false, timeoutMs: 2000 });
    const port = receiver.port;
    const hostsName = hostsLoopbackName();
    const urls = [
      `http://127.0.0.1:${port}/hook`,
      `http://127.1:${port}/hook`,
      `http://2130706433:${port}/hook`,
      `http://0.0.0.0:${port}/hook`,
      `http://[::1]:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://localhost:${port}/hook`,
      `http://LOCALHOST.:${port}/hook`,
      `http://api.localhost:${port}/hook`,
      `http://10.0.0.1:${port}/hook`,
      `http://192.168.0.10:${port}/hook`,
      `http://100.64.1.1:${port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[fe80::1]:${port}/hook`,
      `http://[fd00::1]:${port}/hook`,
      ...(hostsName ? [`http://${hostsName}:${port}/hook`] : []),
    ];
    const targets: ChannelTarget[] = [
      ...urls.map(webhook),
      { type: 'slack', webhookUrl: `http://127.0.0.1:${port}/slack` },
      { type: 'teams', webhookUrl: `http://localhost:${port}/teams` },
    ];
    for (const target of targets) {
      const attempt = await sender.send(target, log4shellAlert());
      expect(attempt, JSON.stringify(target)).toMatchObject({
        ok: false,
        status_code: null,
        retryable: false,
      });
      expect(attempt.error).toMatch(/^Refused: .* public addresses/);
      expect(attempt.error).not.toMatch(/\n/);
    }
    expect(receiver.connections).toBe(0);
    expect(receiver.requests).toHaveLength(0);
    await sender.close();
  });

  it('names the address a host name resolved to', async () => {
    const sender = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: false, timeoutMs: 2000 });
    const hostsName = hostsLoopbackName();
    const attempt = await sender.send(
      webhook(`http://${hostsName ?? 'localhost'}:${receiver.port}/`),
      log4shellAlert(),
    );
    if (hostsName)
      expect(attempt.error).toMatch(/resolves to 127\.\d+\.\d+\.\d+, which is a loopback address/);
    else expect(attempt.error).toMatch(/localhost is a loopback address/);
    expect(receiver.connections).toBe(0);
  });

  it('delivers to the same loopback receiver when private addresses are allowed', async () => {
    const sender = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: true, timeoutMs: 2000 });
    const hostsName = hostsLoopbackName();
    const urls = [`http://127.0.0.1:${receiver.port}/a`, `http://localhost:${receiver.port}/b`];
    if (hostsName) urls.push(`http://${hostsName}:${receiver.port}/c`);
    for (const url of urls) {
      const attempt = await sender.send(webhook(url), log4shellAlert());
      expect(attempt, url).toMatchObject({ ok: true, status_code: 200, error: null });
    }
    expect(receiver.requests.map((r) => r.path)).toEqual(['/a', '/b', '/c'].slice(0, urls.length));
    await sender.close();
  });

  it('keeps a connection open for the next attempt to the same host, and vets the host every time', async () => {
    const own = await startReceiver();
    const sender = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: true, timeoutMs: 2000 });
    for (const path of ['/1', '/2', '/3'])
      expect(
        await sender.send(webhook(`http://127.0.0.1:${own.port}${path}`), log4shellAlert()),
      ).toMatchObject({
        ok: true,
      });
    expect(own.requests.map((r) => r.path)).toEqual(['/1', '/2', '/3']);
    expect(own.connections).toBe(1);
    // A sender that may not reach loopback refuses before any connection, pooled or new.
    const strict = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: false, timeoutMs: 2000 });
    expect((await strict.send(webhook(`http://127.0.0.1:${own.port}/4`), log4shellAlert())).error).toMatch(
      /^Refused/,
    );
    expect(own.requests).toHaveLength(3);
    // A receiver that closed the idle connection gets a new one.
    await own.closeConnections();
    expect(await sender.send(webhook(`http://127.0.0.1:${own.port}/5`), log4shellAlert())).toMatchObject({
      ok: true,
    });
    expect(own.connections).toBe(2);
    await sender.close();
    await strict.close();
    await own.close();
  });

  it('refuses a URL that fails the static check, not retryable', async () => {
    const sender = createChannelSender({ smtpFrom: 'x@example.com', allowPrivate: true, timeoutMs: 2000 });
    const attempt = await sender.send(webhook('ftp://127.0.0.1/x'), log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: null, retryable: false });
    expect(attempt.error).toMatch(/http or https/);
  });
});
