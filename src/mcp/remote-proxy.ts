/**
 * `vulntrack mcp --url`: a stdio MCP server that passes every request to a running server's `/mcp`
 * (the SDK's Streamable HTTP client with the token), so an assistant that starts a local process
 * reaches a remote vulntrack. Nothing is decided here: the remote server lists, checks and answers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SERVER_NAME, MCP_SERVER_VERSION } from './mcp-server.ts';

/** `https://host` or `https://host/prefix` → its `/mcp`; a URL already ending in `/mcp` as it is. */
export function mcpEndpoint(base: string): URL {
  const url = new URL(base);
  if (!/\/mcp\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/$/, '')}/mcp`;
  return url;
}

/** Connects to the remote server (a bad token or URL fails here) and gives the pass-through server. */
export async function remoteProxy(
  base: string,
  token: string,
): Promise<{ server: Server; close(): Promise<void> }> {
  const client = new Client({ name: `${MCP_SERVER_NAME}-stdio-proxy`, version: MCP_SERVER_VERSION });
  await client.connect(
    new StreamableHTTPClientTransport(mcpEndpoint(base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: client.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request) => (await client.callTool(request.params)) as CallToolResult,
  );
  server.setRequestHandler(ListResourcesRequestSchema, (request) => client.listResources(request.params));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) =>
    client.listResourceTemplates(request.params),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request) => client.readResource(request.params));
  return { server, close: () => client.close() };
}
