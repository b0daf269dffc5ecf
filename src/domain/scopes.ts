/**
 * Token scopes (`<area>:read` / `<area>:write`; a write scope includes the read scope of its area) and
 * the order of checks of docs/api-v2.md: valid token → a `read` token may not write → the scope.
 */
import { AppError } from './errors.ts';
import type { TokenMode } from './tokens.ts';

export const SCOPES = [
  'catalog:read',
  'org:read',
  'org:write',
  'members:read',
  'members:write',
  'audit_logs:read',
  'projects:read',
  'projects:write',
  'subscriptions:read',
  'subscriptions:write',
  'tracker:read',
  'tracker:write',
  'reports:read',
  'notifications:read',
  'notifications:write',
  'automations:read',
  'automations:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** What a route requires: a scope (any of `anyOf` also satisfies it) and whether it writes. */
export interface Requirement {
  scope: Scope;
  anyOf?: Scope[];
  write: boolean;
}

function holds(scopes: readonly string[], scope: Scope): boolean {
  if (scopes.includes(scope)) return true;
  return scope.endsWith(':read') && scopes.includes(scope.replace(/:read$/, ':write'));
}

/**
 * Throws the catalog error for a token of `mode` with `scopes` (empty: everything its mode allows)
 * on a route with `requirement`.
 */
export function authorize(mode: TokenMode, scopes: readonly string[], requirement: Requirement): void {
  if (requirement.write && mode === 'read') throw new AppError('read_only_token');
  if (!scopes.length) return;
  const acceptable = [requirement.scope, ...(requirement.anyOf ?? [])];
  if (!acceptable.some((s) => holds(scopes, s))) {
    throw new AppError(
      'missing_scope',
      `This token lacks the scope ${requirement.scope}.`,
      undefined,
      requirement.scope,
    );
  }
}
