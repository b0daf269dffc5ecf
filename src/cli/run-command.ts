/** Runs a service command here, or in the running server that holds the embedded data dir. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { getConfig } from '../config.ts';
import { lockHolder } from '../db/data-dir-lock.ts';
import { AppError, ERROR_CATALOG } from '../domain/errors.ts';
import type { Services } from '../services/services.ts';
import { cancelControl, sendControl, socketPath, type ErrorClassifier } from './control-socket.ts';
import { EXIT, UsageError, type Output } from './output.ts';
import type { CommandResult } from './command.ts';
import { CANCELLABLE_COMMANDS, serviceCommands } from './service-commands.ts';

/** Bad input is a usage error (exit 2): validation errors name the field and the problem. */
export const classifyError: ErrorClassifier = (err) => {
  if (err instanceof UsageError) return { message: err.message, usage: true };
  if (err instanceof AppError && err.code === 'validation_error' && err.details) {
    const parts = Object.entries(err.details).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
    return { message: parts.join(', '), usage: true };
  }
  if (err instanceof AppError && err.code === 'validation_error')
    return { message: err.message, usage: true };
  // A service's own sentence ("No alias … to remove.") says more than the catalog's "Not found.".
  if (err instanceof AppError && err.code === 'not_found') {
    return {
      message: err.message === ERROR_CATALOG.not_found.message ? 'not found' : err.message,
      usage: true,
    };
  }
  return { message: err instanceof Error ? err.message : String(err), usage: false };
};

function print(result: CommandResult, out: Output): number {
  for (const note of result.notes ?? []) out.progress(note);
  out.result(result.text, result.data);
  return result.exitCode;
}

/**
 * While a cancellable command runs, the first SIGINT or SIGTERM calls `cancel` (the command stops at
 * its next batch boundary and still prints its result); a second one exits at once with 130.
 * Other commands keep the default: the signal ends the process.
 */
function onInterrupt(command: string, out: Output, cancel: (signal: NodeJS.Signals) => void): () => void {
  if (!CANCELLABLE_COMMANDS.has(command)) return () => {};
  let interrupted = false;
  const handler = (signal: NodeJS.Signals) => {
    if (interrupted) {
      out.error(`${signal} again: exiting without waiting for the ${command} to stop`);
      process.exit(EXIT.cancelled);
    }
    interrupted = true;
    cancel(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Runs the command in the server holding the data dir, and says what happened if that server dies meanwhile. */
async function runInServer(
  dataDir: string,
  holder: number,
  command: string,
  args: Record<string, unknown>,
  out: Output,
): Promise<number> {
  out.progress(`handing the command to the running server (pid ${holder})`);
  const id = randomUUID();
  const stopHandling = onInterrupt(command, out, (signal) => {
    out.progress(
      `${signal}: asking the server (pid ${holder}) to cancel the ${command}; it stops at its next batch boundary (${signal} again exits at once)`,
    );
    cancelControl(dataDir, id).catch(() => {});
  });
  let lastProgress: string | undefined;
  try {
    for await (const message of sendControl(dataDir, { command, args, id })) {
      if (message.type === 'progress') {
        lastProgress = message.line;
        out.progress(message.line);
      } else if (message.type === 'result') return print(message.result, out);
      else {
        out.error(message.message);
        return message.usage ? EXIT.usage : EXIT.failure;
      }
    }
  } catch (err) {
    // A server that cannot be reached at all says so; a connection that broke (ECONNRESET, "aborted")
    // means the server went away meanwhile, as when the stream ends without a result.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT') throw err;
  } finally {
    stopHandling();
  }
  out.error(serverStopped(holder, command, lastProgress));
  return EXIT.failure;
}

/** What the client knows when the server stopped before answering. */
function serverStopped(holder: number, command: string, lastProgress: string | undefined): string {
  const head = `the server (pid ${holder}) stopped before the ${command} finished`;
  if (command !== 'import')
    return `${head}; start it again (or run the command without it) and check whether the ${command} took effect`;
  return (
    `${head}: the batches it committed are kept${lastProgress ? ` (its last progress: ${lastProgress})` : ''}; ` +
    `run the same import again, with the server started again or stopped, to complete it (what was saved is not imported twice)`
  );
}

export async function runServiceCommand(
  command: string,
  args: Record<string, unknown>,
  out: Output,
): Promise<number> {
  const config = getConfig();
  const holder = config.databaseUrl ? undefined : lockHolder(config.dataDir);
  if (holder !== undefined && fs.existsSync(socketPath(config.dataDir)))
    return runInServer(config.dataDir, holder, command, args, out);
  // Loaded here, not at the top: a command handed to the running server never needs the services.
  const { createServices } = await import('../main.ts');
  const services: Services = await createServices(config);
  const controller = new AbortController();
  const stopHandling = onInterrupt(command, out, (signal) => {
    out.progress(
      `${signal}: cancelling the ${command} at its next batch boundary (${signal} again exits at once)`,
    );
    controller.abort();
  });
  try {
    const run = serviceCommands[command];
    if (!run) throw new UsageError(`unknown command ${command}`);
    return print(await run(services, args, (line) => out.progress(line), controller.signal), out);
  } catch (err) {
    const { message, usage } = classifyError(err);
    out.error(message);
    return usage ? EXIT.usage : EXIT.failure;
  } finally {
    stopHandling();
    await services.close();
  }
}
