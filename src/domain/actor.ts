/** Who does something: a user (web UI, CLI), an organization token (API) or the system (automations, sync). */
export interface Actor {
  type: 'user' | 'token' | 'system';
  id: string | null;
  name: string;
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
