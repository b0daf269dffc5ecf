/**
 * `vulntrack mcp --token <token> [--url <server>]`: the MCP server on stdin and stdout for an assistant
 * that starts a local process (docs/mcp.md). Without `--url` it opens this machine's data dir (or
 * DATABASE_URL) and serves as the token; with `--url` it passes every call to that server's `/mcp`.
 * stdout carries MCP messages only: every other line goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { getConfig } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { AppError } from '../domain/errors.ts';
import { createServices } from '../main.ts';
import { createMcpServer, mcpCallerOf } from '../mcp/mcp-server.ts';
import { remoteProxy } from '../mcp/remote-proxy.ts';
import { EXIT, type Output } from './output.ts';

interface Served {
  server: Pick<Server, 'connect'>;
  close(): Promise<void>;
}

/** Resolves when the client closes our stdin (it is done) or a signal asks the process to stop. */
const untilDone = () =>
  new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });

/** The MCP server over this process's own services, as the token. */
async function local(token: string, out: Output): Promise<Served> {
  const services = await createServices(getConfig());
  const header = `Bearer ${token}`;
  try {
    const auth = await services.tokens.authenticate(header);
    const log = (err: unknown) =>
      out.error(`MCP call failed: ${err instanceof Error ? err.stack : String(err)}`);
    // Each call authenticates again: a token revoked meanwhile stops working at once, as in the API.
    const caller = async () => mcpCallerOf(await services.tokens.authenticate(header));
    const server = createMcpServer(services, auth, log, caller);
    return { server: server.server, close: () => services.close() };
  } catch (err) {
    await services.close();
    throw err;
  }
}

export async function mcpCommand(out: Output, options: { token?: string; url?: string }): Promise<number> {
  const token = options.token ?? process.env.VULNTRACK_TOKEN;
  if (!token) {
    out.error('no token: give --token <token> or set VULNTRACK_TOKEN');
    return EXIT.usage;
  }
  let served: Served;
  try {
    served = options.url ? await remoteProxy(options.url, token) : await local(token, out);
  } catch (err) {
    if (err instanceof AppError) out.error(`${err.code}: ${err.message}`);
    else if (err instanceof DataDirLockedError)
      out.error(`${err.message} Or give --url with that server's address to serve through it.`);
    else out.error(options.url ? `cannot reach ${options.url}: ${(err as Error).message}` : String(err));
    return EXIT.failure;
  }
  await served.server.connect(new StdioServerTransport());
  out.progress(`vulntrack MCP server on stdio${options.url ? `, passing calls to ${options.url}` : ''}`);
  await untilDone();
  await served.close();
  return EXIT.ok;
}
