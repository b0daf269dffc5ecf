/**
 * Organizations for API tests: an owner user, an organization created through the account service,
 * and real tokens of it. Names carry a prefix so that several per database do not collide.
 */
import { expect } from 'vitest';
import type { Services } from '../../src/services/services.ts';
import type { Actor } from '../../src/domain/actor.ts';
import type { TokenMode } from '../../src/domain/tokens.ts';

export interface TestOrganization {
  id: string;
  name: string;
  owner: { id: string; username: string; email: string };
  /** A real token of the organization; `scopes` empty = everything the mode allows. */
  token(mode: TokenMode, scopes?: string[]): Promise<{ token: string; tokenId: string; name: string }>;
}

let counter = 0;

export async function createTestOrganization(services: Services, prefix: string): Promise<TestOrganization> {
  const n = ++counter;
  const owner = await services.accounts.createUser({
    username: `${prefix}-owner-${n}`,
    email: `${prefix}-owner-${n}@example.com`,
    password: 'correct horse battery',
  });
  const org = await services.accounts.createOrganization(`${prefix}-org-${n}`, owner.username);
  const actor: Actor = { type: 'user', id: owner.id, name: owner.username };
  let tokens = 0;
  return {
    id: org.id,
    name: org.name,
    owner: { id: owner.id, username: owner.username, email: owner.email },
    async token(mode, scopes = []) {
      const name = `${mode}-${scopes.join('+') || 'all'}-${++tokens}`;
      const { token, record } = await services.tokens.create(org.id, { name, mode, scopes }, actor);
      return { token, tokenId: record.tokenId, name };
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export const MICROS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A 401 in the error envelope with `WWW-Authenticate: Bearer`. */
export function expectInvalidToken(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  expect(res.statusCode).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer');
  expect(res.json()).toEqual({ error: { code: 'invalid_token', message: 'Invalid or missing token.' } });
}

export function expectNotFound(res: { statusCode: number; json(): unknown }) {
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
}

export function expectReadOnly(res: { statusCode: number; json(): unknown }) {
  expect(res.statusCode).toBe(403);
  expect(res.json()).toEqual({
    error: {
      code: 'read_only_token',
      message: 'This token is read-only and cannot perform write operations.',
    },
  });
}

export function expectMissingScope(res: { statusCode: number; json(): unknown }, scope: string) {
  expect(res.statusCode).toBe(403);
  expect(res.json()).toEqual({
    error: { code: 'missing_scope', message: `This token lacks the scope ${scope}.`, required_scope: scope },
  });
}

/** A 400 `validation_error`; returns its details. */
export function expectValidationError(res: {
  statusCode: number;
  json(): unknown;
}): Record<string, string[]> {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { error: { code: string; message: string; details: Record<string, string[]> } };
  expect(body.error.code).toBe('validation_error');
  expect(body.error.message).toBe('Validation error.');
  expect(Object.keys(body.error)).toEqual(['code', 'message', 'details']);
  return body.error.details;
}
