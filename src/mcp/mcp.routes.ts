/**
 * `POST /mcp`: the MCP server over Streamable HTTP (docs/mcp.md), stateless: each request is
 * authenticated with an organization token (401 `invalid_token` in the API's envelope otherwise,
 * before the SDK sees it), counted against the token's request budget (RATE_LIMIT_PER_MINUTE, one
 * budget with API v2's), then handed with its parsed body to a new server and transport of the SDK, which answer in
 * JSON. No session, no server-initiated stream: GET and DELETE are 405 (the SDK's stateless mode).
 */
import type { FastifyPluginAsync } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TokenAuth } from '../domain/actor.ts';
import { registerCallerRateLimit, type TokenBudget } from '../http/rate-limit.ts';
import { createMcpServer } from './mcp-server.ts';
import type { McpServices } from './tool.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The token of a `/mcp` request. */
    mcpToken?: TokenAuth;
  }
}

export const mcpRoutes: FastifyPluginAsync<{
  services: McpServices;
  /** The per-token request budget shared with API v2. */
  budget?: TokenBudget;
}> = async (app, { services, budget }) => {
  // Errors thrown here reach the server's error handler: the API's envelope, `WWW-Authenticate: Bearer`.
  app.addHook('onRequest', async (request) => {
    request.mcpToken = await services.tokens.authenticate(request.headers.authorization);
  });
  const max = services.config.rateLimitPerMinute;
  await registerCallerRateLimit(app, {
    max,
    key: (request) => request.mcpToken?.id ?? request.ip,
    covers: () => true,
    message: (after) => `Too many requests: at most ${max} per minute for a token; retry in ${after}.`,
    budget,
  });

  app.post('/mcp', async (request, reply) => {
    const auth = request.mcpToken!;
    const server = createMcpServer(services, auth, (err) => request.log.error({ err }, 'MCP call failed'));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The SDK writes the answer on Node's response; Fastify steps aside (the security headers are
    // already on it: helmet sets them on the raw response in onRequest).
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (err) {
      request.log.error({ err }, 'MCP request failed');
      if (!reply.raw.headersSent)
        reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32603, message: 'Internal server error.' },
            id: null,
          }),
        );
    }
  });
};
