/**
 * How a CLI command is declared: once, with its name, arguments, options and handler. The commander
 * program (main.ts) and the control socket's table of commands (service-commands.ts) are both built
 * from these declarations.
 */
import type { Services } from '../services/services.ts';
import type { Output } from './output.ts';

export interface CommandResult {
  text: string;
  data: unknown;
  exitCode: number;
  /** Lines for stderr (skipped records and the like). */
  notes?: string[];
}

/** A positional argument as commander writes it: `<id>`, `[cve_id]`, `<paths...>`. */
export interface ArgumentSpec {
  name: string;
  description?: string;
}

export interface OptionSpec {
  /** As commander writes them: `--org <name>`, `--admin`. */
  flags: string;
  description?: string;
  required?: boolean;
  /** May be given several times: the values in order (none: `[]`). */
  repeatable?: boolean;
  choices?: readonly string[];
}

interface CommandSpec {
  /** The words after `vulntrack`: `import`, `token create`. */
  name: string;
  description: string;
  arguments?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
}

/** A command that runs in the CLI's own process only (it opens the database or serves itself). */
export interface LocalCommand extends CommandSpec {
  kind: 'local';
  /** Its exit status; `options` as commander parsed them (a command with options reads them here). */
  run(out: Output, options: Record<string, unknown>): Promise<number>;
}

/**
 * A command on the services: it runs in the CLI's process, or (while `serve` holds the embedded data
 * dir) inside the running server, handed over the control socket with its arguments as JSON.
 */
export interface ServiceCommand<A = unknown> extends CommandSpec {
  kind: 'service';
  /**
   * In the CLI's process: the command's arguments from what commander parsed, the positional
   * arguments in their order, then the options. Throws UsageError for bad usage.
   */
  args(...values: never[]): A;
  /** `signal`: Ctrl-C or SIGTERM of the CLI (or the server stopping); only CANCELLABLE_COMMANDS watch it. */
  run(
    services: Services,
    args: A,
    progress: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<CommandResult>;
}

export type CliCommand = LocalCommand | ServiceCommand;

/** Declares a service command, its `args` and `run` typed together. */
export function serviceCommand<A, V extends unknown[]>(
  spec: Omit<ServiceCommand<A>, 'kind' | 'args'> & { args(...values: V): A },
): ServiceCommand<A> {
  return { kind: 'service', ...spec } as unknown as ServiceCommand<A>;
}

/** The command's name on the control socket: its words joined by dots (`token.create`). */
export const commandKey = (command: CliCommand) => command.name.split(' ').join('.');
