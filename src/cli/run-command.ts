/** Runs a service command here, or in the running server that holds the embedded data dir. */
import fs from 'node:fs';
import { getConfig } from '../config.ts';
import { lockHolder } from '../db/data-dir-lock.ts';
import { AppError } from '../domain/errors.ts';
import type { Services } from '../main.ts';
import { sendControl, socketPath, type ErrorClassifier } from './control-socket.ts';
import { EXIT, UsageError, type Output } from './output.ts';
import { serviceCommands, type CommandResult } from './service-commands.ts';

/** Bad input is a usage error (exit 2): validation errors name the field and the problem. */
export const classifyError: ErrorClassifier = (err) => {
  if (err instanceof UsageError) return { message: err.message, usage: true };
  if (err instanceof AppError && err.code === 'validation_error' && err.details) {
    const parts = Object.entries(err.details).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
    return { message: parts.join(', '), usage: true };
  }
  if (err instanceof AppError && err.code === 'not_found') return { message: 'not found', usage: true };
  return { message: err instanceof Error ? err.message : String(err), usage: false };
};

function print(result: CommandResult, out: Output): number {
  for (const note of result.notes ?? []) out.progress(note);
  out.result(result.text, result.data);
  return result.exitCode;
}

export async function runServiceCommand(
  command: string,
  args: Record<string, unknown>,
  out: Output,
): Promise<number> {
  const config = getConfig();
  const holder = config.databaseUrl ? undefined : lockHolder(config.dataDir);
  if (holder !== undefined && fs.existsSync(socketPath(config.dataDir))) {
    out.progress(`handing the command to the running server (pid ${holder})`);
    for await (const message of sendControl(config.dataDir, { command, args })) {
      if (message.type === 'progress') out.progress(message.line);
      else if (message.type === 'result') return print(message.result, out);
      else {
        out.error(message.message);
        return message.usage ? EXIT.usage : EXIT.failure;
      }
    }
    throw new Error('the running server closed the connection before the command finished');
  }
  // Loaded here, not at the top: a command handed to the running server never needs the services.
  const { createServices } = await import('../main.ts');
  const services: Services = await createServices(config);
  try {
    const run = serviceCommands[command];
    if (!run) throw new UsageError(`unknown command ${command}`);
    return print(await run(services, args, (line) => out.progress(line)), out);
  } catch (err) {
    const { message, usage } = classifyError(err);
    out.error(message);
    return usage ? EXIT.usage : EXIT.failure;
  } finally {
    await services.close();
  }
}
