/** Builds the real app in-process over a test database, with an organization and tokens to call it with. */
import { buildApp } from '../../src/server.ts';
import { parseConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { servicesFor } from '../../src/main.ts';
import type { Services } from '../../src/services/services.ts';
import type { Actor } from '../../src/domain/actor.ts';
import type { TokenMode } from '../../src/domain/tokens.ts';

export interface TestApi {
  app: Awaited<ReturnType<typeof buildApp>>;
  services: Services;
  close(): Promise<void>;
}

export async function buildTestApi(database: Database, env: Record<string, string> = {}): Promise<TestApi> {
  const services = servicesFor(parseConfig(env), database, 'test-secret-'.padEnd(40, 'x'));
  const app = await buildApp({ services, logger: false });
  return { app, services, close: () => app.close() };
}

let userCounter = 0;

/** A user who owns a new organization named `name`. */
export async function createOrganization(services: Services, name: string) {
  userCounter++;
  const user = await services.accounts.createUser({
    username: `owner${userCounter}-${name}`,
    email: `owner${userCounter}@${name}.example`,
    password: 'correct horse battery staple',
  });
  const org = await services.accounts.createOrganization(name, user.username);
  const actor: Actor = { type: 'user', id: user.id, name: user.username };
  return { org, user, actor };
}

/** A new token of the organization; returns the bearer header value. */
export async function createToken(
  services: Services,
  organizationId: string,
  actor: Actor,
  options: { mode?: TokenMode; scopes?: string[]; name?: string } = {},
) {
  const { token, record } = await services.tokens.create(
    organizationId,
    { name: options.name ?? 'test', mode: options.mode ?? 'write', scopes: options.scopes ?? [] },
    actor,
  );
  return { header: `Bearer ${token}`, token, record };
}
