/** The email channel against a real SMTP server on loopback (smtp-server), parsed with mailparser. */
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelSender, type ChannelTarget } from '../../src/notifications/channel-sender.ts';
import type { NotificationPayload } from '../../src/notifications/payload.ts';
import { bigReport, log4shellAlert } from './payloads.ts';
import type { ParsedMail } from 'mailparser';
import { startSink, type Sink } from './smtp-sink.ts';

const sinks: Sink[] = [];
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((s) => s.close()));
});

async function sink(reject?: { code: number; message: string }): Promise<Sink> {
  const started = await startSink(reject);
  sinks.push(started);
  return started;
}

const UNSUBSCRIBE = 'https://vulntrack.example.org/unsubscribe?token=u_8f3a9c2e&n=security-team';
const target: ChannelTarget = { type: 'email', to: 'alice@acme.example', unsubscribeUrl: UNSUBSCRIBE };

async function send(smtpUrl: string | undefined, payload: NotificationPayload, timeoutMs = 5000) {
  const sender = createChannelSender({
    smtpUrl,
    smtpFrom: 'vulntrack <alerts@vulntrack.example.org>',
    allowPrivate: false,
    timeoutMs,
    baseUrl: 'https://vulntrack.example.org',
  });
  try {
    return await sender.send(target, payload);
  } finally {
    await sender.close();
  }
}

/** A raw header line, unfolded (RFC 5322 §2.2.3). */
function header(mail: ParsedMail, name: string): string | undefined {
  return mail.headerLines.find((h) => h.key === name)?.line.replace(/\r?\n(?=[ \t])/g, '');
}

describe('email channel', () => {
  it('sends text and HTML parts with the CVE, an unsubscribe link and List-Unsubscribe headers', async () => {
    const smtp = await sink();
    const payload = log4shellAlert();
    const attempt = await send(smtp.url, payload);

    expect(attempt).toMatchObject({ ok: true, status_code: 250, error: null, retryable: false });
    expect(smtp.messages).toHaveLength(1);
    const [{ from, to, mail }] = smtp.messages as [Sink['messages'][number]];
    expect(from).toBe('alerts@vulntrack.example.org');
    expect(to).toEqual(['alice@acme.example']);
    expect(mail.subject).toBe('New critical CVE in payments: CVE-2021-44228');
    expect(mail.messageId).toBe(`<${payload.id}@vulntrack.example.org>`);

    expect(mail.text).toContain('CVE-2021-44228: Apache Log4j2 JNDI features do not protect');
    expect(mail.text).toContain('CVSS 3.1: 10.0 (critical) · KEV: yes · EPSS: 94.36%');
    expect(mail.text).toContain('Events: entered the project, added to KEV');
    expect(mail.text).toContain('https://vulntrack.example.org/cves/CVE-2021-44228');
    expect(mail.text).toContain(`Unsubscribe: ${UNSUBSCRIBE}`);

    const html = mail.html as string;
    expect(html).toContain('<a href="https://vulntrack.example.org/cves/CVE-2021-44228">CVE-2021-44228</a>');
    expect(html).toContain('CVSS 3.1: <strong>10.0 (critical)</strong>');
    expect(html).toContain('KEV: <strong>yes</strong>');
    expect(html).toContain(`<a href="${UNSUBSCRIBE.replace(/&/g, '&amp;')}">Unsubscribe</a>`);

    expect(header(mail, 'list-unsubscribe')).toBe(`List-Unsubscribe: <${UNSUBSCRIBE}>`);
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  });

  it('escapes HTML from titles and CVE records in the HTML part', async () => {
    const smtp = await sink();
    const payload = log4shellAlert();
    payload.title = 'Alert <img src=x onerror=alert(1)> & "more"';
    payload.changes[0]!.cve.title = '<script>alert("xss")</script> in log4j';
    payload.changes[0]!.cve.vendors = ['a&b', '<i>vendor</i>'];
    await send(smtp.url, payload);
    const [{ mail }] = smtp.messages as [Sink['messages'][number]];
    const html = mail.html as string;
    expect(html).not.toMatch(/<script|<img|<i>/);
    expect(html).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt; in log4j');
    expect(html).toContain('Alert &lt;img src=x onerror=alert(1)&gt; &amp; &quot;more&quot;');
    expect(html).toContain('Vendors: A&amp;b, &lt;i&gt;vendor&lt;/i&gt;');
    expect(mail.subject).toBe('Alert <img src=x onerror=alert(1)> & "more"');
    expect(mail.text).toContain('<script>alert("xss")</script> in log4j');
  });

  it('lists up to 100 CVEs and says how many more there are', async () => {
    const smtp = await sink();
    await send(smtp.url, bigReport(130));
    const [{ mail }] = smtp.messages as [Sink['messages'][number]];
    expect(mail.text).toContain('…and 30 CVEs more (130 in all).');
    expect((mail.html as string).match(/<li /g)).toHaveLength(100);
  });

  it('reports a permanent SMTP rejection with its reply code, not retryable', async () => {
    const smtp = await sink({ code: 550, message: 'Mailbox unavailable' });
    const attempt = await send(smtp.url, log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: 550, retryable: false });
    expect(attempt.error).toBe('The SMTP server answered 550 Mailbox unavailable.');
  });

  it('reports a transient SMTP rejection as retryable', async () => {
    const smtp = await sink({ code: 451, message: 'Try again later' });
    const attempt = await send(smtp.url, log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: 451, retryable: true });
  });

  it('reports an unreachable SMTP server as retryable', async () => {
    const smtp = await sink();
    const url = smtp.url;
    await smtp.close();
    sinks.pop();
    const attempt = await send(url, log4shellAlert(), 2000);
    expect(attempt).toMatchObject({ ok: false, status_code: null, retryable: true });
    expect(attempt.error).toMatch(/^(The SMTP server refused the connection\.|Sending the email failed)/);
  });

  it('refuses a recipient that is not exactly one address, without connecting', async () => {
    const smtp = await sink();
    const sender = createChannelSender({
      smtpUrl: smtp.url,
      smtpFrom: 'a@example.org',
      allowPrivate: false,
      timeoutMs: 2000,
    });
    for (const to of [
      'alice@acme.example,mallory@evil.example',
      'Alice <alice@acme.example>',
      'not-an-address',
    ]) {
      const attempt = await sender.send({ type: 'email', to, unsubscribeUrl: UNSUBSCRIBE }, log4shellAlert());
      expect(attempt, to).toMatchObject({ ok: false, status_code: null, retryable: false });
      expect(attempt.error).toMatch(/is not a single email address/);
    }
    await sender.close();
    expect(smtp.messages).toHaveLength(0);
  });

  it('fails without an SMTP server configured, not retryable', async () => {
    const attempt = await send(undefined, log4shellAlert());
    expect(attempt).toMatchObject({ ok: false, status_code: null, retryable: false });
    expect(attempt.error).toBe('Email cannot be sent: no SMTP server is configured (set SMTP_URL).');
  });
});
