/** `vulntrack migrate-from-opencve`: an OpenCVE organization copied in through its API v2 (docs/migrating-from-opencve.md). */
import { SYSTEM_ACTOR } from '../domain/actor.ts';
import { actorFor } from './arguments.ts';
import { serviceCommand } from './command.ts';
import { EXIT } from './output.ts';

export const migrateFromOpencve = serviceCommand({
  name: 'migrate-from-opencve',
  description:
    "copy an OpenCVE organization's projects, subscriptions, notifications (disabled: secrets are entered again), automations and tracker state, from its API v2",
  options: [
    { flags: '--url <base>', description: "OpenCVE's address (https://opencve.example.com)", required: true },
    { flags: '--token <token>', description: 'an organization token of OpenCVE', required: true },
    { flags: '--org <name>', description: 'the vulntrack organization to copy into', required: true },
    { flags: '--from-org <name>', description: "OpenCVE's organization (default: the token's)" },
    { flags: '--as <username>', description: 'a member of --org the audit log credits (default: system)' },
  ],
  args: (o: { url: string; token: string; org: string; fromOrg?: string; as?: string }) => ({
    url: o.url,
    token: o.token,
    org: o.org,
    fromOrg: o.fromOrg,
    as: o.as,
  }),
  async run(services, args, progress) {
    const org = await services.accounts.getOrganization(args.org).catch(() => undefined);
    const actor = org ? await actorFor(services, org, args.as) : SYSTEM_ACTOR;
    const r = await services.opencveMigration.migrate(
      { url: args.url, token: args.token, organization: args.org, fromOrganization: args.fromOrg, actor },
      progress,
    );
    const t = (x: { created: number; existing: number; failed: number }) =>
      `${x.created} created, ${x.existing} existing (skipped)${x.failed ? `, ${x.failed} not copied` : ''}`;
    const lines = [
      `from OpenCVE ${r.from.organization} (${r.from.url}) into ${r.to}:`,
      `  projects: ${t(r.projects)}`,
      `  subscriptions: ${r.subscriptions.added} added${r.subscriptions.unknown.length ? `, ${r.subscriptions.unknown.length} not in the catalog` : ''}`,
      `  notifications: ${t(r.notifications)}; created disabled: their secrets must be entered again`,
      `  automations: ${t(r.automations)}`,
      `  tracker: ${r.tracker.updated} moved, ${r.tracker.unchanged} already so` +
        (r.tracker.notInProject ? `, ${r.tracker.notInProject} not in the project here` : '') +
        (r.tracker.assigneesNotMembers
          ? `, ${r.tracker.assigneesNotMembers} assignees not members here`
          : ''),
    ];
    const failed = r.projects.failed + r.notifications.failed + r.automations.failed;
    return {
      text: lines.join('\n'),
      data: r,
      exitCode: failed ? EXIT.partial : EXIT.ok,
      notes: r.notes,
    };
  },
});
