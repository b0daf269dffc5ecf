/** `vulntrack member …`: invite to an organization, list its members and invitations, remove one. */
import { SYSTEM_ACTOR } from '../domain/actor.ts';
import type { Services } from '../services/services.ts';
import { actorFor } from './arguments.ts';
import { serviceCommand } from './command.ts';
import { EXIT, UsageError } from './output.ts';

export const memberAdd = serviceCommand({
  name: 'member add',
  description:
    'invite someone to an organization by email (emailed when SMTP_URL is set; else prints the link)',
  arguments: [{ name: '<org>', description: 'the organization' }, { name: '<email>' }],
  options: [
    {
      flags: '--role <role>',
      description: 'owner or member (default: member)',
      choices: ['owner', 'member'],
    },
    { flags: '--invited-by <username>', description: 'the member the invitation is recorded as made by' },
  ],
  args: (org: string, email: string, o: { role?: 'owner' | 'member'; invitedBy?: string }) => ({
    org,
    email,
    role: o.role ?? 'member',
    invitedBy: o.invitedBy,
  }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.invitedBy);
    const member = await services.members.invite(org.id, { email: args.email, role: args.role }, actor);
    const { invitation } = member;
    const head = `invited ${member.email} to ${org.name} as ${member.role}`;
    const text =
      invitation.email === 'sent'
        ? `${head}; the invitation was emailed`
        : `${head}; ${invitation.email === 'failed' ? `the email failed (${invitation.error})` : 'email is not configured (SMTP_URL)'}, so hand over this link (it works once, for 14 days):\n${invitation.link}`;
    return {
      text,
      data: {
        id: member.id,
        email: member.email,
        role: member.role,
        organization: org.name,
        emailed: invitation.email === 'sent',
        link: invitation.email === 'sent' ? null : invitation.link,
      },
      exitCode: EXIT.ok,
    };
  },
});

/** Every membership of the organization, page by page. */
async function allMembers(services: Services, organizationId: string) {
  const all = [];
  for (let page = 1; ; page++) {
    const { count, items } = await services.members.list(organizationId, { page, pageSize: 100 });
    all.push(...items);
    if (all.length >= count || items.length === 0) return all;
  }
}

export const memberList = serviceCommand({
  name: 'member list',
  description: 'list the members and pending invitations of an organization',
  arguments: [{ name: '<org>', description: 'the organization' }],
  args: (org: string) => ({ org }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const rows = (await allMembers(services, org.id)).map((m) => ({
      id: m.id,
      email: m.email,
      username: m.username,
      role: m.role,
      status: m.date_joined ? 'joined' : 'invited',
      date_invited: m.date_invited.toISOString(),
      date_joined: m.date_joined?.toISOString() ?? null,
    }));
    const lines = rows.map(
      (r) =>
        `${r.email}  ${r.role.padEnd(6)}  ${r.status.padEnd(7)}  ${r.username ?? '-'}  ` +
        (r.date_joined ? `joined ${r.date_joined}` : `invited ${r.date_invited}`),
    );
    return {
      text: lines.length ? lines.join('\n') : `no members in ${org.name}`,
      data: rows,
      exitCode: EXIT.ok,
    };
  },
});

export const memberRemove = serviceCommand({
  name: 'member remove',
  description: 'remove a member, or withdraw an invitation (its link stops working)',
  arguments: [{ name: '<org>', description: 'the organization' }, { name: '<email>' }],
  args: (org: string, email: string) => ({ org, email }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const member = await services.members.findByEmail(org.id, args.email);
    if (!member) throw new UsageError(`${args.email} is neither a member of ${org.name} nor invited to it`);
    await services.members.remove(org.id, member.id, SYSTEM_ACTOR);
    const what = member.date_joined ? 'removed' : 'withdrew the invitation of';
    return {
      text: `${what} ${member.email} ${member.date_joined ? 'from' : 'to'} ${org.name}`,
      data: { id: member.id, email: member.email, removed: true },
      exitCode: EXIT.ok,
    };
  },
});
