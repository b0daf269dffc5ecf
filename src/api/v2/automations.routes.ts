/**
 * `…/projects/<project>/automations` (scopes `automations:read` / `automations:write`) and
 * `…/projects/<project>/reports` (scope `reports:read`), docs/notifications.md.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import type { AutomationInput, AutomationPatch } from '../../services/automation.service.ts';
import { pageEnvelope } from '../pagination.ts';
import {
  AutomationConfiguration,
  AutomationDetail,
  automationDetail,
  AutomationItem,
  automationItem,
  Execution,
  ExecutionDetail,
  executionDetail,
  executionItem,
  ReportDetailSchema,
  reportDetail,
  ReportItem,
  reportItem,
} from './notification.presenter.ts';
import { ProjectParams } from './params.ts';
import { commonErrors, PageQuery, pageOf, Paginated } from './schemas.ts';
import { csvStream, sendCsv } from '../../http/csv.ts';
import { FormatQuery, jsonOrCsv } from '../csv-query.ts';
import { REPORT_CSV_COLUMNS } from '../../http/report-csv.ts';
import { REPORT_PERIOD_TYPES, type ReportPeriodType } from '../../domain/report.ts';
import { WEEKDAYS } from '../../domain/automation-execution.ts';
import { CHOICE } from '../validation-messages.ts';

import { authOf } from './auth.ts';

const read = { auth: { scope: 'automations:read', write: false } } as const;
const write = { auth: { scope: 'automations:write', write: true } } as const;
const reportsRead = { auth: { scope: 'reports:read', write: false } } as const;

const Params = Type.Object({
  ...ProjectParams.properties,
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
const ExecutionParams = Type.Object({
  ...Params.properties,
  id: Type.String({ minLength: 1, maxLength: 100 }),
});
const ReportParams = Type.Object({
  ...ProjectParams.properties,
  id: Type.String({ minLength: 1, maxLength: 100 }),
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the project.' }),
  is_enabled: Type.Optional(Type.Boolean()),
  trigger_type: Type.Union([Type.Literal('alert'), Type.Literal('report')], {
    ...CHOICE,
    description: 'alert: runs on each matching change; report: daily or weekly.',
  }),
  frequency: Type.Optional(Type.Union([Type.Literal('daily'), Type.Literal('weekly')], CHOICE)),
  schedule_time: Type.Optional(
    Type.String({
      maxLength: 8,
      description:
        '`HH:MM:SS` (as OpenCVE writes it, seconds 00) or `HH:MM` in schedule_timezone (default 08:00:00).',
    }),
  ),
  schedule_timezone: Type.Optional(
    Type.String({ maxLength: 64, description: 'IANA time zone (default UTC).' }),
  ),
  schedule_weekday: Type.Optional(
    Type.Union(
      [
        ...WEEKDAYS.map((d) => Type.Literal(d)),
        Type.Integer({ minimum: 0, maximum: 6, description: '0 Sunday … 6 Saturday.' }),
      ],
      { ...CHOICE, description: 'Weekly: `monday` … `sunday` (or 0 Sunday … 6 Saturday); default monday.' },
    ),
  ),
  configuration: AutomationConfiguration,
};

export const automationRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'config' | 'automations' | 'reports'>;
}> = async (app, { services }) => {
  const { automations, reports } = services;
  const baseUrl = services.config.baseUrl;
  const base = '/organizations/:org/projects/:project/automations';

  app.get(
    base,
    {
      config: read,
      schema: {
        tags: ['automations'],
        summary: "The project's automations, by name",
        params: ProjectParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(AutomationItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await automations.list(
        authOf(request).organizationId,
        request.params.project,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(automationItem));
    },
  );

  app.post(
    base,
    {
      config: write,
      schema: {
        tags: ['automations'],
        summary: 'Create an automation',
        params: ProjectParams,
        body: Type.Object(fields, { additionalProperties: false }),
        response: { 201: AutomationDetail, ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const created = await automations.create(
        auth.organizationId,
        request.params.project,
        request.body as unknown as AutomationInput,
        auth.actor,
      );
      return reply.status(201).send(automationDetail(created));
    },
  );

  app.get(
    `${base}/:name`,
    {
      config: read,
      schema: {
        tags: ['automations'],
        summary: 'One automation, with its configuration',
        params: Params,
        response: { 200: AutomationDetail, ...commonErrors },
      },
    },
    async (request) =>
      automationDetail(
        await automations.get(authOf(request).organizationId, request.params.project, request.params.name),
      ),
  );

  app.patch(
    `${base}/:name`,
    {
      config: write,
      schema: {
        tags: ['automations'],
        summary: 'Change an automation (the result is validated as a whole)',
        params: Params,
        body: Type.Partial(Type.Object(fields), { additionalProperties: false }),
        response: { 200: AutomationDetail, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return automationDetail(
        await automations.update(
          auth.organizationId,
          request.params.project,
          request.params.name,
          request.body as unknown as AutomationPatch,
          auth.actor,
        ),
      );
    },
  );

  app.delete(
    `${base}/:name`,
    {
      config: write,
      schema: {
        tags: ['automations'],
        summary: 'Delete an automation and its executions (its reports stay)',
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      await automations.delete(auth.organizationId, request.params.project, request.params.name, auth.actor);
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${base}/:name/run`,
    {
      config: write,
      schema: {
        tags: ['automations'],
        summary: 'Run a report automation now (from the end of its last report); returns the execution',
        params: Params,
        response: { 200: ExecutionDetail, ...commonErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return executionDetail(
        await automations.run(auth.organizationId, request.params.project, request.params.name),
      );
    },
  );

  app.get(
    `${base}/:name/executions`,
    {
      config: read,
      schema: {
        tags: ['automations'],
        summary: 'The executions of an automation, newest first',
        params: Params,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(Execution), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await automations.listExecutions(
        authOf(request).organizationId,
        request.params.project,
        request.params.name,
        page,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(executionItem));
    },
  );

  app.get(
    `${base}/:name/executions/:id`,
    {
      config: read,
      schema: {
        tags: ['automations'],
        summary: 'One execution with its per-action results',
        params: ExecutionParams,
        response: { 200: ExecutionDetail, ...commonErrors },
      },
    },
    async (request) =>
      executionDetail(
        await automations.getExecution(
          authOf(request).organizationId,
          request.params.project,
          request.params.name,
          request.params.id,
        ),
      ),
  );

  app.get(
    '/organizations/:org/projects/:project/reports',
    {
      config: reportsRead,
      schema: {
        tags: ['reports'],
        summary: "The project's reports, newest first",
        params: ProjectParams,
        querystring: Type.Object({
          ...PageQuery,
          period_type: Type.Optional(
            Type.Union(
              REPORT_PERIOD_TYPES.map((t) => Type.Literal(t)),
              { description: 'Only daily or only weekly reports.' },
            ),
          ),
        }),
        response: { 200: Paginated(ReportItem), ...commonErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { count, items } = await reports.list(
        authOf(request).organizationId,
        request.params.project,
        page,
        request.query.period_type as ReportPeriodType | undefined,
      );
      return pageEnvelope(request, baseUrl, page, count, items.map(reportItem));
    },
  );

  app.get(
    '/organizations/:org/projects/:project/reports/:id',
    {
      config: reportsRead,
      schema: {
        tags: ['reports'],
        summary: 'One report: every CVE that changed in the period, its events and changes',
        params: ReportParams,
        querystring: Type.Object(FormatQuery),
        response: {
          200: jsonOrCsv(
            ReportDetailSchema,
            `One row per CVE of the report: ${REPORT_CSV_COLUMNS.map((c) => c.header).join(', ')}.`,
          ),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { project, id } = request.params;
      const detail = await reports.get(authOf(request).organizationId, project, id);
      if (request.query.format === 'csv') {
        return sendCsv(
          reply,
          `report-${project}-${detail.report.link}.csv`,
          csvStream(REPORT_CSV_COLUMNS, detail.cves),
        );
      }
      return reportDetail(detail);
    },
  );
};
