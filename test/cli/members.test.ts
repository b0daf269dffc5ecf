/** `vulntrack member add|list|remove` on the server host, against both databases. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';
import { startSink, type Sink } from '../notifications/smtp-sink.ts';

for (const backend of backends) {
  describe(`vulntrack member [${backend}]`, { timeout: 240_000 }, () => {
    let workDir: string;
    let env: NodeJS.ProcessEnv;
    let drop: () => Promise<void>;
    let sink: Sink;

    beforeAll(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-members-'));
      const db = await cliDatabase(backend, workDir);
      drop = db.drop;
      env = { ...db.env, VULNTRACK_LOAD_SAMPLE: 'false', VULNTRACK_BASE_URL: 'https://vt.example.org' };
      sink = await startSink();
      for (const args of [
        [
          'user',
          'create',
          '--username',
          'alice',
          '--email',
          'alice@example.com',
          '--password',
          'correct horse',
        ],
        ['org', 'create', 'acme', '--owner', 'alice'],
      ]) {
        const r = await runCli(args, env);
        expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      }
    });
    afterAll(async () => {
      await sink.close();
      await drop();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('invites: prints the link without SMTP, emails it with SMTP_URL', async () => {
      const noSmtp = await runCli(
        ['member', 'add', 'acme', 'Bob@Example.com', '--role', 'owner', '--invited-by', 'alice'],
        env,
      );
      expect(noSmtp.code).toBe(0);
      expect(noSmtp.stdout).toContain(
        'invited bob@example.com to acme as owner; email is not configured (SMTP_URL)',
      );
      expect(noSmtp.stdout).toMatch(/https:\/\/vt\.example\.org\/invitations\/[A-Za-z0-9_-]{30,}\n$/);

      const emailed = await runCli(['--json', 'member', 'add', 'acme', 'carol@example.com'], {
        ...env,
        SMTP_URL: sink.url,
      });
      expect(emailed.code).toBe(0);
      expect(JSON.parse(emailed.stdout)).toMatchObject({
        email: 'carol@example.com',
        role: 'member',
        emailed: true,
        link: null,
      });
      expect(sink.messages.map((m) => m.to)).toEqual([['carol@example.com']]);
      expect(sink.messages[0]!.mail.text).toMatch(/https:\/\/vt\.example\.org\/invitations\//);

      const again = await runCli(['member', 'add', 'acme', 'carol@example.com'], env);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('An invitation has already been sent');
      const bad = await runCli(['member', 'add', 'acme', 'not-an-email'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('not an email address');
    });

    it('lists members and invitations (--json), removes and withdraws, and keeps the last owner', async () => {
      const list = await runCli(['--json', 'member', 'list', 'acme'], env);
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as {
        email: string;
        role: string;
        status: string;
        username: string | null;
      }[];
      expect(rows.map((r) => [r.email, r.role, r.status, r.username])).toEqual([
        ['alice@example.com', 'owner', 'joined', 'alice'],
        ['bob@example.com', 'owner', 'invited', null],
        ['carol@example.com', 'member', 'invited', null],
      ]);
      const text = await runCli(['member', 'list', 'acme'], env);
      expect(text.stdout).toMatch(/^alice@example\.com\s+owner\s+joined\s+alice/m);

      const withdrawn = await runCli(['member', 'remove', 'acme', 'CAROL@example.com'], env);
      expect(withdrawn.code).toBe(0);
      expect(withdrawn.stdout).toContain('withdrew the invitation of carol@example.com to acme');
      const last = await runCli(['member', 'remove', 'acme', 'alice@example.com'], env);
      expect(last.code).toBe(2);
      expect(last.stderr).toContain('Cannot remove the last owner');
      const unknown = await runCli(['member', 'remove', 'acme', 'nobody@example.com'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('nobody@example.com is neither a member of acme nor invited to it');
      const after = JSON.parse((await runCli(['--json', 'member', 'list', 'acme'], env)).stdout) as {
        email: string;
      }[];
      expect(after.map((r) => r.email)).toEqual(['alice@example.com', 'bob@example.com']);
      expect((await runCli(['member', 'list', 'no-such-org'], env)).code).not.toBe(0);
    });
  });
}
