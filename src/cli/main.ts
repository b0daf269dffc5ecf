/** The `vulntrack` command line. Exit 0 on success, 1 on failure, 2 on bad usage, 3 on a partial import. */
import fs from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { InputError } from '../sources/input.ts';
import { isSourceName, SOURCE_NAMES } from '../sources/source.ts';
import { SCOPES } from '../domain/scopes.ts';
import { createOutput, EXIT, UsageError, type Output } from './output.ts';
import { runServiceCommand } from './run-command.ts';
import { absoluteTargets } from './service-commands.ts';

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

program
  .command('serve')
  .description('HTTP API and web UI (what `npm start` runs)')
  .action(async () => {
    // Loaded when used: the HTTP app is most of the module graph, and every other command (and
    // --help) starts that much sooner without it.
    const { serveCommand } = await import('./serve.command.ts');
    exitCode = await serveCommand();
  });

program
  .command('worker')
  .description('jobs and schedules only, no HTTP (scale-out on a PostgreSQL server)')
  .action(async () => {
    const { workerCommand } = await import('./worker.command.ts');
    exitCode = await workerCommand(out());
  });

const jobs = program
  .command('jobs')
  .description('the job queue: counts by status, running jobs, retries, failed and dead jobs')
  .action(async () => {
    exitCode = await runServiceCommand('jobs.status', {}, out());
  });
jobs
  .command('retry')
  .description('queue a dead or failed job again, with fresh attempts')
  .argument('<id>', 'the job id')
  .action(async (id: string) => {
    exitCode = await runServiceCommand('jobs.retry', { id }, out());
  });

program
  .command('migrate')
  .description('apply database migrations (serve does it too)')
  .action(async () => {
    const { migrateCommand } = await import('./migrate.command.ts');
    exitCode = await migrateCommand(out());
  });

program
  .command('import')
  .description(`import upstream data; source: ${SOURCE_NAMES.join(' | ')}`)
  .argument('<source>', SOURCE_NAMES.join(' | '))
  .argument('<paths...>', 'files, folders, .gz/.zip archives or http(s) URLs')
  .action(async (source: string, paths: string[]) => {
    if (!isSourceName(source))
      throw new UsageError(`unknown source "${source}"; use one of ${SOURCE_NAMES.join(', ')}`);
    const targets = absoluteTargets(paths);
    for (const t of targets) {
      if (!/^https?:\/\//i.test(t) && !fs.existsSync(t)) throw new UsageError(`${t}: no such file or folder`);
    }
    exitCode = await runServiceCommand('import', { source, targets }, out());
  });

program
  .command('sync')
  .description('one sync round from the configured upstreams, now (default: every source of SYNC_SOURCES)')
  .argument('[sources...]', 'cve5 | nvd | kev | epss | cwe')
  .action(async (sources: string[]) => {
    exitCode = await runServiceCommand('sync', { sources }, out());
  });

const user = program.command('user').description('user accounts');
user
  .command('create')
  .description('create a user (the first admin, for example)')
  .requiredOption('--username <username>')
  .requiredOption('--email <email>')
  .option('--password <password>', 'the password (visible in the process list: prefer --password-stdin)')
  .option('--password-stdin', 'read the password from standard input')
  .option('--admin', 'a site administrator')
  .action(
    async (o: {
      username: string;
      email: string;
      password?: string;
      passwordStdin?: boolean;
      admin?: boolean;
    }) => {
      if (!o.password === !o.passwordStdin)
        throw new UsageError('give exactly one of --password and --password-stdin');
      const password = o.passwordStdin ? fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '') : o.password!;
      exitCode = await runServiceCommand(
        'user.create',
        { username: o.username, email: o.email, password, admin: o.admin === true },
        out(),
      );
    },
  );

const org = program.command('org').description('organizations');
org
  .command('create')
  .description('create an organization with its first owner')
  .argument('<name>', 'letters, digits and -')
  .requiredOption('--owner <username>')
  .action(async (name: string, o: { owner: string }) => {
    exitCode = await runServiceCommand('org.create', { name, owner: o.owner }, out());
  });

const project = program.command('project').description('projects of an organization');
project
  .command('create')
  .description('create a project, with its subscriptions')
  .argument('<org>', 'the organization')
  .argument('<name>', 'the project name')
  .option('--vendor <vendor>', 'subscribe to a vendor (repeatable)', collect, [])
  .option('--product <vendor:product>', 'subscribe to a product of a vendor (repeatable)', collect, [])
  .action(async (orgName: string, name: string, o: { vendor: string[]; product: string[] }) => {
    const products: Record<string, string[]> = {};
    for (const p of o.product) {
      const i = p.indexOf(':');
      if (i <= 0 || i === p.length - 1) throw new UsageError(`--product takes VENDOR:PRODUCT, not "${p}"`);
      (products[p.slice(0, i)] ??= []).push(p.slice(i + 1));
    }
    exitCode = await runServiceCommand(
      'project.create',
      { org: orgName, name, vendors: o.vendor, products },
      out(),
    );
  });

const token = program.command('token').description('organization API tokens');
token
  .command('create')
  .description('create a token; prints it once, alone on its line')
  .requiredOption('--org <name>')
  .requiredOption('--name <name>')
  .addOption(
    new Option(
      '--mode <mode>',
      'read or write (default: write when a :write scope is given, else read)',
    ).choices(['read', 'write']),
  )
  .option('--scope <scope>', `limit to a scope (repeatable): ${SCOPES.join(', ')}`, collect, [])
  .option('--created-by <username>', 'the member the token is recorded as created by')
  .action(async (o: { org: string; name: string; mode?: string; scope: string[]; createdBy?: string }) => {
    exitCode = await runServiceCommand(
      'token.create',
      { org: o.org, name: o.name, mode: o.mode, scopes: o.scope, createdBy: o.createdBy },
      out(),
    );
  });
token
  .command('list')
  .description('list the tokens of an organization: who created each, its mode, scopes and last use')
  .requiredOption('--org <name>')
  .action(async (o: { org: string }) => {
    exitCode = await runServiceCommand('token.list', { org: o.org }, out());
  });
token
  .command('revoke')
  .description('revoke a token (it stops working on its next request)')
  .requiredOption('--org <name>')
  .argument('<token_id>')
  .action(async (tokenId: string, o: { org: string }) => {
    exitCode = await runServiceCommand('token.revoke', { org: o.org, tokenId }, out());
  });

const tag = program.command('tag').description("a user's own tags on CVEs (API v1's `tag` filter)");
tag
  .command('set')
  .description("set a user's tags on a CVE, replacing the ones it had (no tags: untag it)")
  .requiredOption('--user <username>')
  .argument('<cve_id>')
  .argument('[tags...]', 'letters, digits, _ . - (at most 64 characters each)')
  .action(async (cveId: string, tags: string[], o: { user: string }) => {
    exitCode = await runServiceCommand('tag.set', { user: o.user, cveId, tags }, out());
  });
tag
  .command('list')
  .description("list a user's tagged CVEs with their tags")
  .requiredOption('--user <username>')
  .argument('[cve_id]', 'only this CVE')
  .action(async (cveId: string | undefined, o: { user: string }) => {
    exitCode = await runServiceCommand('tag.list', { user: o.user, cveId }, out());
  });

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
