/** Who does something: a user (web UI, CLI), an organization token (API) or the system (automations, sync). */
export interface Actor {
  type: 'user' | 'token' | 'system';
  id: string | null;
  name: string;
  /** The door it came through when not the usual one: a token's call through the MCP server (docs/mcp.md). */
  via?: 'mcp' | undefined;
}

/**
 * The actor's name as an audit entry (or a comment) records it: its name, and `via mcp` after it for
 * a token calling through the MCP server, so the log says `token` / `<name> via mcp`.
 */
export function recordedName(actor: Actor): string {
  return actor.via ? `${actor.name} via ${actor.via}` : actor.name;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: 'system' };

/**
 * The catalog itself, when it changes what a project subscribes to: a key minted from a CNA's name
 * merged into the key a CPE later named (docs/catalog.md, "Merging minted keys").
 */
export const CATALOG_ACTOR: Actor = { type: 'system', id: null, name: 'catalog' };

/** An authenticated API v2 caller: an organization token. */
export interface TokenAuth {
  actor: Actor;
  /** api_token.id */
  id: string;
  tokenId: string;
  organizationId: string;
  organizationName: string;
  mode: 'read' | 'write';
  scopes: string[];
}

/** An authenticated API v1 caller: a user (HTTP Basic) or, in the paged shape, an organization token. */
export type V1Caller =
  { kind: 'user'; userId: string; username: string } | { kind: 'token'; token: TokenAuth };
