/**
 * OIDC_GROUP_ROLES: which group of the identity provider makes a person a member (or an owner) of
 * which organization. Pure: parsed once at startup, applied at every single sign-on.
 */
import type { Role } from './member.ts';

/** One `group=org:role` of the setting. */
export interface GroupRole {
  group: string;
  organization: string;
  role: Role;
}

/** An organization's name as organizations are named (letters, digits and -). */
const ORGANIZATION = /^[A-Za-z0-9-]{1,100}$/;

/**
 * The mapping of `value`: comma-separated `group=org:role` entries (`secops=acme:owner,dev=acme:member`).
 * A group name may hold anything but `=` and `,` (surrounding blanks are dropped); the role is `owner`
 * or `member`. Throws an Error naming the first malformed entry; an empty value is no mapping.
 */
export function parseGroupRoles(value: string | undefined): GroupRole[] {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const seen = new Set<string>();
  return entries.map((entry) => {
    const match = /^([^=]+)=([^:=]+):([^:=]+)$/.exec(entry);
    if (!match) throw new Error(`"${entry}" is not group=organization:role (e.g. secops=acme:owner)`);
    const group = match[1]!.trim();
    const organization = match[2]!.trim();
    const role = match[3]!.trim();
    if (!group) throw new Error(`"${entry}" names no group`);
    if (!ORGANIZATION.test(organization))
      throw new Error(`"${entry}": "${organization}" is not an organization name (letters, digits and -)`);
    if (role !== 'owner' && role !== 'member')
      throw new Error(`"${entry}": the role must be owner or member (got "${role}")`);
    const key = `${group}\u0000${organization}`;
    if (seen.has(key)) throw new Error(`"${entry}": the group ${group} names ${organization} twice`);
    seen.add(key);
    return { group, organization, role };
  });
}

/** The organizations the mapping names: sign-in sets the memberships of these, and only these. */
export function mappedOrganizations(mapping: readonly GroupRole[]): string[] {
  return [...new Set(mapping.map((m) => m.organization))];
}

/**
 * The role each mapped organization gives a person in `groups` (the higher when two of their groups
 * name one organization: owner over member); an organization absent from the answer gives none.
 */
export function rolesFromGroups(mapping: readonly GroupRole[], groups: readonly string[]): Map<string, Role> {
  const held = new Set(groups);
  const roles = new Map<string, Role>();
  for (const { group, organization, role } of mapping) {
    if (!held.has(group)) continue;
    if (roles.get(organization) !== 'owner') roles.set(organization, role);
  }
  return roles;
}

/**
 * The groups of an ID token's claim: an array of strings, or one string (some providers send a single
 * group so); anything else is no group.
 */
export function groupsOfClaim(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((g): g is string => typeof g === 'string');
  return [];
}
