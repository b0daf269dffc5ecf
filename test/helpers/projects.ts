/**
 * The world of the project, subscription and tracker API tests: the real app over a test database
 * holding real catalog records (CVE 5 and NVD fixtures), an organization with a joined member, an
 * invitation and an outsider, and tokens of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Response } from 'light-my-request';
import type { Database } from '../../src/db/client.ts';
import { AccountRepository } from '../../src/db/account.repository.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from './api.ts';
import { storeTestAliases } from './aliases.ts';

export const NVD_FILES = fs
  .readdirSync('test/fixtures/nvd')
  .filter((f) => f.endsWith('.json'))
  .map((f) => path.join('test/fixtures/nvd', f));

/**
 * A rejected CVE that still names a vendor: the real CVE-2024-31331 record (Google Android) under a
 * synthetic id, marked REJECTED as the CVE Program does when it withdraws a CVE.
 */
export const REJECTED_GOOGLE_CVE = 'CVE-2099-0001';

function rejectedRecordDir(): string {
  const record = JSON.parse(
    fs.readFileSync('test/fixtures/cve5/cves/2024/31xxx/CVE-2024-31331.json', 'utf8'),
  ) as {
    cveMetadata: Record<string, unknown>;
  };
  record.cveMetadata.cveId = REJECTED_GOOGLE_CVE;
  record.cveMetadata.state = 'REJECTED';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vt-rejected-'));
  fs.writeFileSync(path.join(dir, `${REJECTED_GOOGLE_CVE}.json`), JSON.stringify(record));
  return dir;
}

export interface ProjectWorld extends TestApi {
  org: { id: string; name: string };
  owner: { id: string; email: string; username: string };
  /** A joined member (can be assigned). */
  member: { id: string; email: string };
  /** Invited, not joined (cannot be assigned). */
  invitedEmail: string;
  /** A user of another organization (cannot be assigned). */
  outsider: { id: string; email: string };
  /** Another organization with a token of its own. */
  other: { name: string; header: string };
  /** A bearer header value of the organization. */
  token(options?: { mode?: 'read' | 'write'; scopes?: string[]; name?: string }): Promise<string>;
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    header: string,
    payload?: unknown,
  ): Promise<Response>;
}

export async function buildProjectWorld(database: Database, orgName: string): Promise<ProjectWorld> {
  const api = await buildTestApi(database);
  const { services } = api;
  // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
  await storeTestAliases(database.db);
  await services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
  await services.imports.importInputs(sources.nvd, NVD_FILES);
  const rejected = rejectedRecordDir();
  try {
    await services.imports.importInputs(sources.cve5, [rejected]);
  } finally {
    fs.rmSync(rejected, { recursive: true, force: true });
  }

  const { org, user, actor } = await createOrganization(services, orgName);
  const accounts = new AccountRepository(database.db);
  const password = 'correct horse battery staple';
  const member = await services.accounts.createUser({
    username: `${orgName}-bob`,
    email: `bob@${orgName}.example`,
    password,
  });
  await accounts.addMembership({
    organizationId: org.id,
    userId: member.id,
    email: member.email,
    role: 'member',
    joined: true,
  });
  const invitedEmail = `carol@${orgName}.example`;
  await accounts.addMembership({
    organizationId: org.id,
    userId: null,
    email: invitedEmail,
    role: 'member',
    joined: false,
  });
  const other = await createOrganization(services, `${orgName}-other`);
  const outsider = other.user;

  return {
    ...api,
    org: { id: org.id, name: org.name },
    owner: { id: user.id, email: user.email, username: user.username },
    member: { id: member.id, email: member.email },
    invitedEmail,
    outsider: { id: outsider.id, email: outsider.email },
    other: { name: other.org.name, header: (await createToken(services, other.org.id, other.actor)).header },
    token: async (options = {}) => (await createToken(services, org.id, actor, options)).header,
    call: (method, url, header, payload) =>
      api.app.inject({
        method,
        url,
        headers: { authorization: header },
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
  };
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export const MICROS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Res = { statusCode: number; json(): unknown };

export function expectError(res: Res, status: number, error: Record<string, unknown>) {
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body: { error } });
}

export const expectNotFound = (res: Res, message = 'Not found.') =>
  expectError(res, 404, { code: 'not_found', message });

export const expectValidation = (res: Res, details: Record<string, string[]>) =>
  expectError(res, 400, { code: 'validation_error', message: 'Validation error.', details });

export const expectReadOnly = (res: Res) =>
  expectError(res, 403, {
    code: 'read_only_token',
    message: 'This token is read-only and cannot perform write operations.',
  });

export const expectMissingScope = (res: Res, scope: string) =>
  expectError(res, 403, {
    code: 'missing_scope',
    message: `This token lacks the scope ${scope}.`,
    required_scope: scope,
  });

export const expectInvalidToken = (res: Res) =>
  expectError(res, 401, { code: 'invalid_token', message: 'Invalid or missing token.' });
