/**
 * The MCP server of one organization token (docs/mcp.md): the tools and resources, each bound by the
 * token exactly as API v2 binds the same data (organization, mode, scopes; `read_only_token`,
 * `missing_scope`, `not_found` in the error text). Built per HTTP request (stateless) or once per
 * stdio process. Only what the token may call is listed: `triage_cve` for a read-write token with
 * `tracker:write` only; a call of anything else is still checked, and refused with the API's code.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { TokenAuth } from '../domain/actor.ts';
import { authorize, type Requirement } from '../domain/scopes.ts';
import { CATALOG_TOOLS } from './catalog.tools.ts';
import { PROJECT_TOOLS } from './project.tools.ts';
import { registerResources } from './resources.ts';
import { toolError, toolResult } from './results.ts';
import { annotationsOf, type McpCaller, type McpServices, type ToolSpec } from './tool.ts';

export const MCP_SERVER_NAME = 'vulntrack';
export const MCP_SERVER_VERSION = '0.1.0';

/** Every tool, in the order they are listed. */
export const TOOLS: readonly ToolSpec[] = [...CATALOG_TOOLS, ...PROJECT_TOOLS];

/** The caller a token's calls act as: its writes are recorded as `<name> via mcp`. */
export const mcpCallerOf = (auth: TokenAuth): McpCaller => ({ auth, actor: { ...auth.actor, via: 'mcp' } });

const allows = (auth: TokenAuth, requirement: Requirement) => {
  try {
    authorize(auth.mode, auth.scopes, requirement);
    return true;
  } catch {
    return false;
  }
};

function instructions(auth: TokenAuth): string {
  return (
    `vulntrack: the CVE catalog (merged from CVE records, NVD, CISA KEV, EPSS) and the projects of the ` +
    `organization ${auth.organizationName}. "Are we affected by CVE-X / the new <vendor> CVE?": search_cves or ` +
    `get_cve, then list_projects and project_cves (or why_in_project). Lists are capped at 50 items and results ` +
    `at 64 KB; read on with next_cursor.`
  );
}

/**
 * The server for `auth` (the token as first authenticated: what is listed). `caller` gives the token
 * as each call acts (stdio checks it again on every call, so a revoked token stops at once); `log`
 * takes what failed unexpectedly (never shown to the caller).
 */
export function createMcpServer(
  services: McpServices,
  auth: TokenAuth,
  log: (err: unknown) => void,
  caller: () => Promise<McpCaller> = () => Promise.resolve(mcpCallerOf(auth)),
): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { instructions: instructions(auth), capabilities: { tools: {}, resources: {} } },
  );
  for (const spec of TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.input,
        annotations: annotationsOf(spec),
      },
      async (args: Record<string, unknown>) => {
        try {
          const who = await caller();
          authorize(who.auth.mode, who.auth.scopes, spec.requires);
          return toolResult(await spec.run(args as never, services, who));
        } catch (err) {
          return toolError(err, log);
        }
      },
    );
  }
  // The SDK lists every registered tool; this token sees those it may call. Replacing the SDK's
  // handler (a public method) keeps every tool callable, so a call of a tool not listed is refused
  // with the API's code (`read_only_token`, `missing_scope`) rather than "unknown tool". The input
  // schemas are converted as the SDK converts zod 4 shapes (JSON Schema draft 7, input side).
  const listed = TOOLS.filter((spec) => allows(auth, spec.requires)).map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: z.toJSONSchema(z.object(spec.input), { target: 'draft-7', io: 'input' }) as {
      type: 'object';
      [key: string]: unknown;
    },
    annotations: annotationsOf(spec),
  }));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  registerResources(server, services, caller, log);
  return server;
}
