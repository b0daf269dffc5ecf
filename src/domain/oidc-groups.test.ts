import { describe, expect, it } from 'vitest';
import { groupsOfClaim, mappedOrganizations, parseGroupRoles, rolesFromGroups } from './oidc-groups.ts';

describe('OIDC_GROUP_ROLES', () => {
  it('reads group=org:role entries, blanks around them dropped', () => {
    expect(parseGroupRoles(' secops=acme:owner, dev=acme:member ,/ops team=beta-2:member')).toEqual([
      { group: 'secops', organization: 'acme', role: 'owner' },
      { group: 'dev', organization: 'acme', role: 'member' },
      { group: '/ops team', organization: 'beta-2', role: 'member' },
    ]);
    expect(parseGroupRoles(undefined)).toEqual([]);
    expect(parseGroupRoles('')).toEqual([]);
  });

  it('refuses a malformed entry, naming it', () => {
    expect(() => parseGroupRoles('secops=acme')).toThrow('"secops=acme" is not group=organization:role');
    expect(() => parseGroupRoles('secops:acme:owner')).toThrow('is not group=organization:role');
    expect(() => parseGroupRoles('secops=acme:admin')).toThrow(
      'the role must be owner or member (got "admin")',
    );
    expect(() => parseGroupRoles('secops=ac me:owner')).toThrow('"ac me" is not an organization name');
    expect(() => parseGroupRoles(' =acme:owner')).toThrow('is not group=organization:role');
    expect(() => parseGroupRoles('a=acme:owner,a=acme:member')).toThrow('names acme twice');
  });

  it('gives the higher role when two groups name one organization, nothing for other groups', () => {
    const mapping = parseGroupRoles('secops=acme:owner,dev=acme:member,dev=beta:member');
    expect(mappedOrganizations(mapping)).toEqual(['acme', 'beta']);
    expect([...rolesFromGroups(mapping, ['dev', 'secops'])]).toEqual([
      ['acme', 'owner'],
      ['beta', 'member'],
    ]);
    expect([...rolesFromGroups(mapping, ['dev'])]).toEqual([
      ['acme', 'member'],
      ['beta', 'member'],
    ]);
    expect(rolesFromGroups(mapping, ['sales']).size).toBe(0);
  });

  it('reads a claim of groups as an array or a single string', () => {
    expect(groupsOfClaim(['a', 2, 'b'])).toEqual(['a', 'b']);
    expect(groupsOfClaim('a')).toEqual(['a']);
    expect(groupsOfClaim(undefined)).toEqual([]);
    expect(groupsOfClaim({ a: 1 })).toEqual([]);
  });
});
