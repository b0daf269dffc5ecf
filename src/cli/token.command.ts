/** `vulntrack token …`: create, list and revoke an organization's API tokens. */
import { SYSTEM_ACTOR } from '../domain/actor.ts';
import { AppError } from '../domain/errors.ts';
import { isScope, SCOPES, type Scope } from '../domain/scopes.ts';
import { actorFor } from './arguments.ts';
import { serviceCommand } from './command.ts';
import { EXIT, UsageError } from './output.ts';

export const tokenCreate = serviceCommand({
  name: 'token create',
  description: 'create a token; prints it once, alone on its line',
  options: [
    { flags: '--org <name>', required: true },
    { flags: '--name <name>', required: true },
    {
      flags: '--mode <mode>',
      description: 'read or write (default: write when a :write scope is given, else read)',
      choices: ['read', 'write'],
    },
    {
      flags: '--scope <scope>',
      description: `limit to a scope (repeatable): ${SCOPES.join(', ')}`,
      repeatable: true,
    },
    { flags: '--created-by <username>', description: 'the member the token is recorded as created by' },
  ],
  args: (o: { org: string; name: string; mode?: 'read' | 'write'; scope: string[]; createdBy?: string }) => {
    const unknown = o.scope.filter((s) => !isScope(s));
    if (unknown.length)
      throw new UsageError(
        `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; scopes are ${SCOPES.join(', ')}`,
      );
    const scopes = o.scope as Scope[];
    const mode = o.mode ?? (scopes.some((s) => s.endsWith(':write')) ? 'write' : 'read');
    return { org: o.org, name: o.name, mode, scopes, createdBy: o.createdBy };
  },
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.createdBy);
    const { mode, scopes } = args;
    const { token, record } = await services.tokens.create(org.id, { name: args.name, mode, scopes }, actor);
    // The token alone on stdout: scripts capture it with $(vulntrack token create …).
    return {
      text: token,
      data: {
        token,
        token_id: record.tokenId,
        name: record.name,
        mode: record.mode,
        scopes: record.scopes,
        organization: org.name,
      },
      exitCode: EXIT.ok,
      notes: [
        `created ${mode} token ${record.tokenId} "${record.name}" for ${org.name}; it is shown only now`,
      ],
    };
  },
});

export const tokenList = serviceCommand({
  name: 'token list',
  description: 'list the tokens of an organization: who created each, its mode, scopes and last use',
  options: [{ flags: '--org <name>', required: true }],
  args: (o: { org: string }) => ({ org: o.org }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const tokens = await services.tokens.list(org.id);
    const rows = tokens.map((t) => ({
      token_id: t.tokenId,
      name: t.name,
      mode: t.mode,
      scopes: t.scopes,
      created_by: t.createdByName,
      created_at: t.createdAt.toISOString(),
      last_used_at: t.lastUsedAt?.toISOString() ?? null,
      revoked_at: t.revokedAt?.toISOString() ?? null,
    }));
    const lines = rows.map(
      (r) =>
        `${r.token_id}  ${r.revoked_at ? 'revoked' : 'live   '}  ${r.mode.padEnd(5)}  ${r.name}  ` +
        `scopes: ${r.scopes.length ? r.scopes.join(',') : 'all of its mode'}  created by ${r.created_by ?? '(cli)'} ${r.created_at}  ` +
        `last used ${r.last_used_at ?? 'never'}`,
    );
    return {
      text: lines.length ? lines.join('\n') : `no tokens in ${org.name}`,
      data: rows,
      exitCode: EXIT.ok,
    };
  },
});

export const tokenRevoke = serviceCommand({
  name: 'token revoke',
  description: 'revoke a token (it stops working on its next request)',
  arguments: [{ name: '<token_id>' }],
  options: [{ flags: '--org <name>', required: true }],
  args: (tokenId: string, o: { org: string }) => ({ org: o.org, tokenId }),
  async run(services, { org: orgName, tokenId }) {
    const org = await services.accounts.getOrganization(orgName);
    try {
      await services.tokens.revoke(org.id, tokenId, SYSTEM_ACTOR);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found')
        throw new UsageError(`no live token ${tokenId} in ${org.name}`);
      throw err;
    }
    return {
      text: `revoked token ${tokenId}`,
      data: { token_id: tokenId, revoked: true },
      exitCode: EXIT.ok,
    };
  },
});
