/** The `vulntrack` command line. Exit 0 on success, 1 on failure, 2 on bad usage, 3 on a partial import. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { InputError } from '../sources/input.ts';
import { SOURCE_NAMES } from '../sources/source.ts';
import { importCommand } from './import.command.ts';
import { migrateCommand } from './migrate.command.ts';
import { serveCommand } from './serve.command.ts';
import { createOutput, EXIT, UsageError, type Output } from './output.ts';

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

program
  .command('serve')
  .description('HTTP API and web UI (what `npm start` runs)')
  .action(async () => {
    exitCode = await serveCommand();
  });

program
  .command('migrate')
  .description('apply database migrations (serve does it too)')
  .action(async () => {
    exitCode = await migrateCommand(out());
  });

program
  .command('import')
  .description(`import upstream data; source: ${SOURCE_NAMES.join(' | ')}`)
  .argument('<source>', SOURCE_NAMES.join(' | '))
  .argument('<paths...>', 'files, folders, .gz/.zip archives or http(s) URLs')
  .action(async (source: string, paths: string[]) => {
    exitCode = await importCommand(source, paths, out());
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
