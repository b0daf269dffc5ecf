/** Response shapes of organizations, members and audit-log entries (docs/api-v2.md), timestamps in microseconds. */
import { Type } from '@fastify/type-provider-typebox';
import type { MemberRow } from '../../domain/member.ts';
import type { AuditLogRow } from '../../services/audit.service.ts';
import type { OrganizationSummary } from '../../services/organization.service.ts';
import { toMicrosZ } from '../../domain/timestamps.ts';
import { Timestamp, Uuid } from './schemas.ts';

const Role = Type.Enum(['owner', 'member']);
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const OrganizationItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  members_count: Type.Integer({ description: 'Joined members (pending invitations are not counted).' }),
  projects_count: Type.Integer(),
});

export const MemberItem = Type.Object({
  id: Uuid,
  email: Type.String(),
  username: Type.Union([Type.String(), Type.Null()], {
    description: 'null while the invitation is pending.',
  }),
  role: Role,
  date_invited: Timestamp,
  date_joined: Type.Union([Timestamp, Type.Null()], { description: 'null while the invitation is pending.' }),
  is_invited: Type.Boolean({ description: 'true while the invitation is pending.' }),
});

export const AuditLogItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  actor: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('token'), Type.Literal('system')]),
    id: NullableString,
    name: NullableString,
  }),
  action: Type.String({ description: '`<resource>.<verb>`, e.g. `member.update`.' }),
  resource: Type.Object({ type: Type.String(), id: NullableString, name: NullableString }),
  changes: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Changed fields: `{field: {old, new}}` (old null on create, new null on delete).',
  }),
});

export function organizationItem(org: OrganizationSummary) {
  return {
    id: org.id,
    created_at: toMicrosZ(org.created_at),
    updated_at: toMicrosZ(org.updated_at),
    name: org.name,
    members_count: org.members_count,
    projects_count: org.projects_count,
  };
}

export function memberItem(member: MemberRow) {
  const joined = member.date_joined !== null;
  return {
    id: member.id,
    email: member.email,
    username: joined ? member.username : null,
    role: member.role,
    date_invited: toMicrosZ(member.date_invited),
    date_joined: member.date_joined && toMicrosZ(member.date_joined),
    is_invited: !joined,
  };
}

export function auditLogItem(row: AuditLogRow) {
  return {
    id: row.id,
    created_at: toMicrosZ(row.created_at),
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id, name: row.resource_name },
    changes: row.changes,
  };
}
