/** `/organizations/<org>/audit-logs`: who changed what, newest first. Scope `audit_logs:read`. */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../domain/errors.ts';
import { dateProblemMessage, parseTypedDate } from '../../domain/timestamps.ts';
import type { Services } from '../../services/services.ts';
import { pageEnvelope } from '../pagination.ts';
import { auditLogItem, AuditLogItem } from './organization.presenter.ts';
import { OrgParam } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { authOf } from './auth.ts';
import { ruled } from '../validation-messages.ts';

const read = { auth: { scope: 'audit_logs:read', write: false } } as const;
const tags = ['audit-logs'];

const AuditLogQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({
      pattern: ruled('^[a-z_]+\\.[a-z_]+$', 'an action such as member.update'),
      maxLength: 100,
      description: 'Exact action, e.g. `member.update`.',
    }),
  ),
  resource: Type.Optional(
    Type.String({
      pattern: ruled('^[a-z_]+$', 'a resource type such as member'),
      maxLength: 50,
      description: 'Resource type, e.g. `member`.',
    }),
  ),
  since: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Entries at or after this instant: a date (YYYY-MM-DD, midnight UTC) or an ISO 8601 date-time (UTC when it has no zone).',
    }),
  ),
});

/** The instant of a `since` value; 400 for another form, an impossible date (2024-02-30, 25:00) or year 0. */
function parseSince(value: string): Date {
  const parsed = parseTypedDate(value);
  if ('problem' in parsed)
    throw validationError({ since: [dateProblemMessage('since', value, parsed.problem)] });
  return parsed.date;
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
