/** MCP clients of the SDK for tests, and a tool's answer read back (summary, JSON data, error). */
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A client connected to `<baseUrl>/mcp` with the token. */
export async function httpMcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'vulntrack-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

export interface ToolAnswer {
  isError: boolean;
  /** The first text: the summary, or the error. */
  text: string;
  /** The JSON of the second text (undefined for an error). */
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Calls a tool and reads its answer back. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  expect(content.every((c) => c.type === 'text')).toBe(true);
  return {
    isError: result.isError === true,
    text: content[0]!.text,
    data: content[1] ? (JSON.parse(content[1].text) as Record<string, unknown>) : {},
  };
}

/** The names of the tools the client is offered. */
export const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

export const ALL_TOOLS = [
  'get_cve',
  'list_projects',
  'list_vendors_products',
  'match_components',
  'project_cves',
  'search_cves',
  'triage_cve',
  'why_in_project',
];
