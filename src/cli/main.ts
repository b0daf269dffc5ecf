/** The `vulntrack` command line. Exit 0 on success, 1 on failure, 2 on bad usage, 3 on a partial import. */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { InputError } from '../sources/input.ts';
import { commandKey, type CliCommand, type LocalCommand } from './command.ts';
import { createOutput, EXIT, UsageError, type Output } from './output.ts';
import { runServiceCommand } from './run-command.ts';
import { SERVICE_COMMANDS as S } from './service-commands.ts';

const program = new Command('vulntrack')
  .description(
    'Vulnerability tracking: a merged CVE catalog kept current, projects, trackers and notifications.',
  )
  .option('--json', 'machine-readable output')
  .exitOverride()
  .showHelpAfterError()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

const out = (): Output => createOutput(Boolean(program.opts().json));
let exitCode: number = EXIT.ok;
const collect = (value: string, previous: string[]) => [...previous, value];

const serve: LocalCommand = {
  kind: 'local',
  name: 'serve',
  description: 'HTTP API and web UI (what `npm start` runs)',
  async run() {
    // Loaded when used: the HTTP app is most of the module graph, and every other command (and
    // --help) starts that much sooner without it.
    const { serveCommand } = await import('./serve.command.ts');
    return serveCommand();
  },
};

const worker: LocalCommand = {
  kind: 'local',
  name: 'worker',
  description: 'jobs and schedules only, no HTTP (scale-out on a PostgreSQL server)',
  async run(output) {
    const { workerCommand } = await import('./worker.command.ts');
    return workerCommand(output);
  },
};

const mcp: LocalCommand = {
  kind: 'local',
  name: 'mcp',
  description:
    'an MCP server on stdin/stdout for AI assistants, as an organization token (docs/mcp.md); logs on stderr',
  options: [
    { flags: '--token <token>', description: 'the organization token (default: VULNTRACK_TOKEN)' },
    {
      flags: '--url <url>',
      description: "a running server's address: pass every call to its /mcp instead of opening the data dir",
    },
  ],
  async run(output, options) {
    const { mcpCommand } = await import('./mcp.command.ts');
    return mcpCommand(output, options as { token?: string; url?: string });
  },
};

const migrate: LocalCommand = {
  kind: 'local',
  name: 'migrate',
  description: 'apply database migrations (serve does it too)',
  async run(output) {
    const { migrateCommand } = await import('./migrate.command.ts');
    return migrateCommand(output);
  },
};

/** Every command, in the order `vulntrack --help` lists them. */
const COMMANDS: CliCommand[] = [
  serve,
  worker,
  S.jobsStatus,
  S.jobsRetry,
  migrate,
  S.import,
  S.sync,
  S.userCreate,
  S.userList,
  S.userResetPassword,
  S.userDisableTwoFactor,
  S.userDisable,
  S.userEnable,
  S.userLinkSso,
  S.orgCreate,
  S.projectCreate,
  S.tokenCreate,
  S.tokenList,
  S.tokenRevoke,
  S.memberAdd,
  S.memberList,
  S.memberRemove,
  S.tagSet,
  S.tagList,
  S.inventoryUpload,
  S.inventoryList,
  S.inventoryDelete,
  S.vendorsLearn,
  S.vendorsStatus,
  S.vendorsAliasShow,
  S.vendorsAliasList,
  S.vendorsAliasAdd,
  S.vendorsAliasVeto,
  S.vendorsAliasRemove,
  S.migrateFromOpencve,
  mcp,
];

/** The commands that only group others (`vulntrack token …`). */
const GROUPS: Record<string, string> = {
  user: 'user accounts',
  org: 'organizations',
  project: 'projects of an organization',
  token: 'organization API tokens',
  member: 'members and invitations of an organization',
  tag: "a user's own tags on CVEs (API v1's `tag` filter)",
  inventory: "a project's inventories (SBOMs) and the CVEs found in them",
  vendors: 'CNA vendor and product text mapped to catalog keys (learned aliases, overrides)',
  alias: "how a CNA text maps, and the operator's own aliases and vetoes",
};

/** Adds a declared command to the program: its arguments and options, and its action. */
function addCommand(spec: CliCommand): void {
  const words = spec.name.split(' ');
  let parent = program;
  for (const word of words.slice(0, -1)) {
    parent =
      parent.commands.find((c) => c.name() === word) ?? parent.command(word).description(GROUPS[word] ?? '');
  }
  const command = parent.command(words.at(-1)!).description(spec.description);
  for (const a of spec.arguments ?? []) command.argument(a.name, a.description);
  for (const o of spec.options ?? []) {
    const option = new Option(o.flags, o.description);
    if (o.required) option.makeOptionMandatory();
    if (o.repeatable) option.argParser(collect).default([]);
    if (o.choices) option.choices(o.choices);
    command.addOption(option);
  }
  // Commander passes the positional arguments, then the options, then the command itself.
  command.action(async (...values: unknown[]) => {
    if (spec.kind === 'local') {
      exitCode = await spec.run(out(), values.at(-2) as Record<string, unknown>);
      return;
    }
    const args = spec.args(...(values.slice(0, -1) as never[]));
    exitCode = await runServiceCommand(commandKey(spec), args as Record<string, unknown>, out());
  });
}

for (const command of COMMANDS) addCommand(command);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (err instanceof UsageError) {
    out().error(err.message);
    exitCode = EXIT.usage;
  } else if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof InputError) {
    out().error(err.message);
    exitCode = EXIT.failure;
  } else {
    out().error((err as Error).message ?? String(err));
    if (process.env.LOG_LEVEL === 'debug') console.error(err);
    exitCode = EXIT.failure;
  }
}
process.exit(exitCode);
