/** `/organizations/<org>/audit-logs`: who changed what, newest first. Scope `audit_logs:read`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../domain/errors.ts';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { auditLogItem, AuditLogItem } from './organization.presenter.ts';
import { OrgParam } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';

const read = { auth: { scope: 'audit_logs:read', write: false } } as const;
const tags = ['audit-logs'];

const AuditLogQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({
      pattern: '^[a-z_]+\\.[a-z_]+$',
      maxLength: 100,
      description: 'Exact action, e.g. `member.update`.',
    }),
  ),
  resource: Type.Optional(
    Type.String({ pattern: '^[a-z_]+$', maxLength: 50, description: 'Resource type, e.g. `member`.' }),
  ),
  since: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Entries at or after this instant: a date (YYYY-MM-DD, midnight UTC) or an ISO 8601 date-time (UTC when it has no zone).',
    }),
  ),
});

const SINCE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The instant of a `since` value; 400 for another form or an impossible date (2024-02-30, 25:00). */
function parseSince(value: string): Date {
  const invalid = () =>
    validationError({ since: [`invalid date "${value}": expected YYYY-MM-DD or an ISO 8601 date-time`] });
  const m = SINCE.exec(value);
  if (!m) throw invalid();
  const [year = '', month = '', day = '', hour = '00', minute = '00', second = '00', fraction, zone = 'Z'] =
    m.slice(1);
  const local = `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  // Date takes 2024-02-30 for March 1st: the fields must survive a round trip.
  const fields = new Date(`${local}Z`);
  if (Number.isNaN(fields.getTime()) || fields.toISOString().slice(0, 19) !== local) throw invalid();
  const instant = new Date(`${local}${fraction ? `.${fraction}` : ''}${zone}`);
  if (Number.isNaN(instant.getTime())) throw invalid();
  return instant;
}

export const auditLogRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'auditLog'>;
}> = async (app, { services }) => {
  const { auditLog } = services;
  const baseUrl = services.config.baseUrl;

  app.get(
    '/organizations/:org/audit-logs',
    {
      config: read,
      schema: {
        tags,
        summary: 'The audit log of the organization, newest first',
        params: OrgParam,
        querystring: AuditLogQuery,
        response: { 200: Paginated(AuditLogItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { action, resource, since } = request.query;
      const filter = { action, resource, since: since === undefined ? undefined : parseSince(since) };
      const { count, items } = await auditLog.list(authOf(request).organizationId, filter, page);
      return pageEnvelope(request, baseUrl, page, count, items.map(auditLogItem));
    },
  );
};
