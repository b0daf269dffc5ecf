import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { sql } from 'kysely';
import { projectRoot, runCli, type CliResult } from '../helpers/cli.ts';
import { backends, cliDatabase } from '../helpers/databases.ts';
import type { Database } from '../../src/db/client.ts';
import { verifyPassword } from '../../src/domain/passwords.ts';

/** The CLI with `input` on its standard input. */
function runCliWithInput(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'bin/vulntrack.js'), ...args], {
      cwd: projectRoot,
      env: { ...process.env, LOG_LEVEL: 'info', SYNC_SOURCES: 'none', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

for (const backend of backends) {
  describe(`vulntrack user list, reset-password, disable-2fa [${backend}]`, { timeout: 240_000 }, () => {
    let workDir: string;
    let env: NodeJS.ProcessEnv;
    let open: () => Promise<Database>;
    let drop: () => Promise<void>;

    /** Reads the database between two CLI runs (an embedded data dir is held by one process at a time). */
    async function withDatabase<T>(fn: (db: Database['db']) => Promise<T>): Promise<T> {
      const database = await open();
      try {
        return await fn(database.db);
      } finally {
        await database.close();
      }
    }

    beforeAll(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-cli-users-'));
      const db = await cliDatabase(backend, workDir);
      ({ open, drop } = db);
      env = { ...db.env, VULNTRACK_LOAD_SAMPLE: 'false', VULNTRACK_BASE_URL: 'https://vt.example.org' };
      for (const args of [
        [
          'user',
          'create',
          '--username',
          'alice',
          '--email',
          'alice@example.com',
          '--password',
          'a long passphrase',
          '--admin',
        ],
        [
          'user',
          'create',
          '--username',
          'bob',
          '--email',
          'bob@example.com',
          '--password',
          'another passphrase',
        ],
      ]) {
        const r = await runCli(args, env);
        expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
      }
    }, 300_000); // two CLI runs, each migrating a new database on a busy machine
    afterAll(async () => {
      await drop();
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    it('lists the users with admin and two-factor, as text and JSON, never a secret', async () => {
      await withDatabase((db) =>
        db
          .updateTable('app_user')
          .set({ totp_secret: 'v1.x.y.z', totp_enabled_at: new Date() })
          .where('username', '=', 'bob')
          .execute(),
      );
      const text = await runCli(['user', 'list'], env);
      expect(text.code).toBe(0);
      const lines = text.stdout.trim().split('\n');
      expect(lines[0]).toMatch(
        /^alice {2}alice@example\.com {2}admin {2}created \d{4}-\d\d-\d\dT.*two-factor off$/,
      );
      expect(lines[1]).toMatch(/^bob {2}bob@example\.com {2}user {3}created .*two-factor on$/);
      const json = await runCli(['user', 'list', '--json'], env);
      const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
      expect(rows.map((r) => [r.username, r.email, r.is_admin, r.two_factor])).toEqual([
        ['alice', 'alice@example.com', true, false],
        ['bob', 'bob@example.com', false, true],
      ]);
      expect(Object.keys(rows[0]!).sort()).toEqual([
        'created_at',
        'disabled',
        'email',
        'is_admin',
        'two_factor',
        'username',
      ]);
      expect(json.stdout).not.toMatch(/scrypt|v1\.x/);
    });

    it('turns two-factor off for a locked-out user', async () => {
      const off = await runCli(['user', 'disable-2fa', 'bob'], env);
      expect(off.code).toBe(0);
      expect(off.stdout.trim()).toBe('two-factor sign-in is off for bob; their password alone signs in now');
      const row = await withDatabase((db) =>
        db
          .selectFrom('app_user')
          .select(['totp_secret', 'totp_enabled_at'])
          .where('username', '=', 'bob')
          .executeTakeFirstOrThrow(),
      );
      expect(row).toEqual({ totp_secret: null, totp_enabled_at: null });
      expect((await runCli(['user', 'disable-2fa', 'bob'], env)).stdout.trim()).toBe(
        'two-factor sign-in was not on for bob',
      );
      const unknown = await runCli(['user', 'disable-2fa', 'nobody'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no user named "nobody"');
    });

    it('lets an account be linked at its next single sign-on (user link-sso)', async () => {
      const done = await runCli(['user', 'link-sso', 'bob'], env);
      expect(done.code).toBe(0);
      expect(done.stdout.trim()).toMatch(
        /^bob can now sign in with single sign-on as \S+@\S+: the first such sign-in links the account$/,
      );
      const row = await withDatabase((db) =>
        db
          .selectFrom('app_user')
          .select('sso_link_allowed')
          .where('username', '=', 'bob')
          .executeTakeFirstOrThrow(),
      );
      expect(row.sso_link_allowed).toBe(true);
      const unknown = await runCli(['user', 'link-sso', 'nobody'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no user named "nobody"');
    });

    it('disables an account (sessions end, its tokens revoked and audited, still a member) and enables it', async () => {
      const bob = await withDatabase(async (db) => {
        const user = await db
          .selectFrom('app_user')
          .select(['id', 'email'])
          .where('username', '=', 'bob')
          .executeTakeFirstOrThrow();
        const org = await db
          .insertInto('organization')
          .values({ name: 'bobs' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('membership')
          .values({
            organization_id: org.id,
            user_id: user.id,
            email: user.email,
            role: 'owner',
            date_joined: new Date(),
          })
          .execute();
        await db
          .insertInto('api_token')
          .values(
            ['one', 'two'].map((name) => ({
              organization_id: org.id,
              token_id: `tok-${name}`,
              secret_hash: 'x',
              name,
              mode: 'write' as const,
              scopes: [],
              created_by: user.id,
              last_used_at: null,
              revoked_at: null,
              revoked_by: null,
            })),
          )
          .execute();
        await db
          .insertInto('web_session')
          .values({
            id: 'bob-session',
            user_id: user.id,
            data: '{}',
            expires_at: new Date(Date.now() + 86_400_000),
          })
          .execute();
        return { ...user, orgId: org.id };
      });

      const disabled = await runCli(['user', 'disable', 'bob'], env);
      expect({ code: disabled.code, stderr: disabled.stderr }).toMatchObject({ code: 0 });
      expect(disabled.stdout.trim()).toBe(
        'disabled bob: their sessions have ended, 2 API tokens of theirs revoked',
      );
      const after = await withDatabase(async (db) => ({
        user: await db
          .selectFrom('app_user')
          .select('disabled_at')
          .where('id', '=', bob.id)
          .executeTakeFirstOrThrow(),
        sessions: await db.selectFrom('web_session').select('id').where('user_id', '=', bob.id).execute(),
        live: await db
          .selectFrom('api_token')
          .select('name')
          .where('created_by', '=', bob.id)
          .where('revoked_at', 'is', null)
          .execute(),
        audit: await db
          .selectFrom('audit_log')
          .select(['action', 'resource_name', 'actor_type'])
          .where('organization_id', '=', bob.orgId)
          .orderBy('resource_name')
          .execute(),
        members: await db
          .selectFrom('membership')
          .select('user_id')
          .where('organization_id', '=', bob.orgId)
          .execute(),
      }));
      expect(after.user.disabled_at).toBeInstanceOf(Date);
      expect(after.sessions).toEqual([]);
      expect(after.live).toEqual([]);
      expect(after.audit).toEqual([
        { action: 'token.revoke', resource_name: 'one', actor_type: 'system' },
        { action: 'token.revoke', resource_name: 'two', actor_type: 'system' },
      ]);
      expect(after.members).toEqual([{ user_id: bob.id }]);

      const list = await runCli(['--json', 'user', 'list'], env);
      const rows = JSON.parse(list.stdout) as { username: string; disabled: boolean }[];
      expect(rows.map((r) => [r.username, r.disabled])).toEqual([
        ['alice', false],
        ['bob', true],
      ]);
      expect((await runCli(['user', 'list'], env)).stdout).toMatch(/^bob .*two-factor off {2}disabled$/m);
      expect((await runCli(['user', 'disable', 'bob'], env)).stdout.trim()).toBe(
        'bob was already disabled; 0 API tokens of theirs revoked',
      );

      const enabled = await runCli(['user', 'enable', 'bob'], env);
      expect(enabled.code).toBe(0);
      expect(enabled.stdout.trim()).toBe('enabled bob: they can sign in again');
      expect((await runCli(['user', 'enable', 'bob'], env)).stdout.trim()).toBe('bob was not disabled');
      const again = await withDatabase(async (db) => ({
        user: await db
          .selectFrom('app_user')
          .select('disabled_at')
          .where('id', '=', bob.id)
          .executeTakeFirstOrThrow(),
        live: await db
          .selectFrom('api_token')
          .select('name')
          .where('created_by', '=', bob.id)
          .where('revoked_at', 'is', null)
          .execute(),
      }));
      expect(again).toEqual({ user: { disabled_at: null }, live: [] });
      for (const command of ['disable', 'enable']) {
        const unknown = await runCli(['user', command, 'nobody'], env);
        expect(unknown.code).toBe(2);
        expect(unknown.stderr).toContain('no user named "nobody"');
      }
    });

    it('prints a one-time reset link alone on stdout; a new link replaces the last', async () => {
      const first = await runCli(['user', 'reset-password', 'alice'], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^https:\/\/vt\.example\.org\/password-reset\/[A-Za-z0-9_-]{32}\n$/);
      expect(first.stderr).toMatch(/one-time link for alice, valid until \d{4}-/);
      const second = await runCli(['--json', 'user', 'reset-password', 'alice'], env);
      const data = JSON.parse(second.stdout) as { url: string; expires_at: string };
      expect(data.url).not.toBe(first.stdout.trim());
      const usable = await withDatabase((db) =>
        db
          .selectFrom('one_time_link')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('purpose', '=', 'password_reset')
          .where('used_at', 'is', null)
          .executeTakeFirstOrThrow(),
      );
      expect(usable.n).toBe(1);
      const unknown = await runCli(['user', 'reset-password', 'nobody'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
    });

    it('sets a password from standard input and ends the user’s sessions', async () => {
      const userId = await withDatabase(async (db) => {
        const u = await db
          .selectFrom('app_user')
          .select('id')
          .where('username', '=', 'alice')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('web_session')
          .values({
            id: 'a-session',
            user_id: u.id,
            data: '{}',
            expires_at: new Date(Date.now() + 86_400_000),
          })
          .execute();
        return u.id;
      });
      const short = await runCliWithInput(
        ['user', 'reset-password', 'alice', '--password-stdin'],
        env,
        'short\n',
      );
      expect(short.code).toBe(2);
      expect(short.stderr).toContain('password: at least 8 characters');
      const set = await runCliWithInput(
        ['user', 'reset-password', 'alice', '--password-stdin'],
        env,
        'a fresh passphrase\n',
      );
      expect(set.code).toBe(0);
      expect(set.stdout.trim()).toBe('set a new password for alice; their sessions have ended');
      const after = await withDatabase(async (db) => ({
        user: await db
          .selectFrom('app_user')
          .select('password_hash')
          .where('id', '=', userId)
          .executeTakeFirstOrThrow(),
        sessions: await db.selectFrom('web_session').select('id').where('user_id', '=', userId).execute(),
      }));
      expect(await verifyPassword('a fresh passphrase', after.user.password_hash)).toBe(true);
      expect(after.sessions).toEqual([]);
    });
  });
}
