/** Response shapes of notifications, deliveries, automations, executions and reports (docs/notifications.md). */
import { Type } from '@fastify/type-provider-typebox';
import {
  type AutomationView,
  type ExecutionRow,
  ACTION_TYPES,
  ALERT_TRIGGERS,
  CONDITION_TYPES,
} from '../../domain/automation.ts';
import {
  conditionsCount,
  impactSummary,
  resultId,
  resultOutput,
  WEEKDAYS,
  type ExecutionCve,
  type Weekday,
} from '../../domain/automation-execution.ts';
import type { DeliveryRow, NotificationRow } from '../../domain/notification.ts';
import { localDay, reportPeriodType, type ReportRow } from '../../domain/report.ts';
import { toMicrosZ, toSecondsZ } from '../../domain/timestamps.ts';
import {
  CHANNEL_TYPES,
  shownConfiguration,
  shownConfigurationFields,
  type ChannelType,
} from '../../notifications/channel-registry.ts';
import type { DeliveryAttempt } from '../../notifications/channel-sender.ts';
import type { CreatedNotification as Created } from '../../services/notification.service.ts';
import type { ReportDetail } from '../../services/report.service.ts';
import { Timestamp, Uuid } from './schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** A registered channel type. */
export const ChannelTypeSchema = Type.Unsafe<ChannelType>(
  Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t))),
);

export const NotificationItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  type: ChannelTypeSchema,
  is_enabled: Type.Boolean(),
  configuration: Type.Object(shownConfigurationFields(), {
    description:
      "What may be shown of the configuration, in OpenCVE 3.1's masked shapes: never a full URL or a header value.",
  }),
  is_pending_email_confirmation: Type.Optional(
    Type.Boolean({
      description:
        'Email only: the address has not confirmed yet (the notification stays disabled until it does).',
    }),
  ),
});

export const CreatedNotification = Type.Object({
  ...NotificationItem.properties,
  signing_secret: Type.Optional(
    Type.String({ description: 'Webhook only, shown once: `whsec_<base64>` (Standard Webhooks).' }),
  ),
});

/** What may be shown of a notification: its configuration without secrets (they are sealed apart). */
export function notificationItem(n: NotificationRow<ChannelType>) {
  const shown = shownConfiguration(n.type, n.configuration);
  const item = {
    id: n.id,
    created_at: toMicrosZ(n.created_at),
    updated_at: toMicrosZ(n.updated_at),
    name: n.name,
    type: n.type,
    is_enabled: n.is_enabled,
    // An email's opt-in status is a column of its own, shown inside the configuration too.
    configuration: n.type === 'email' ? { ...shown, status: n.email_status } : shown,
  };
  // As on OpenCVE, only email notifications carry the flag.
  return n.type === 'email' ? { ...item, is_pending_email_confirmation: n.email_status === 'pending' } : item;
}

/** A created notification: a webhook's signing secret is shown this once. */
export function createdNotificationItem(created: Created) {
  const item = notificationItem(created.notification);
  return created.signingSecret === undefined ? item : { ...item, signing_secret: created.signingSecret };
}

const Attempt = Type.Object({
  at: Timestamp,
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String()),
});

export const Delivery = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  kind: Type.Union([Type.Literal('alert'), Type.Literal('report'), Type.Literal('test')]),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('dead'),
  ]),
  attempts: Type.Array(Attempt),
  payload_id: Type.String({ description: 'The `id` of the payload: receivers drop duplicates by it.' }),
});

export function deliveryItem(d: DeliveryRow) {
  return {
    id: d.id,
    created_at: toMicrosZ(d.created_at),
    kind: d.kind,
    status: d.status,
    attempts: (d.attempts as DeliveryAttempt[]).map((a) => ({
      at: a.at,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    })),
    payload_id: String(d.payload.id),
  };
}

const Leaf = Type.Object(
  {
    type: Type.Union(CONDITION_TYPES.map((t) => Type.Literal(t))),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
// Groups nest (checked to a depth of 5 by the service); the schema stays one level recursive.
const Group = Type.Object(
  {
    operator: Type.Union([Type.Literal('AND'), Type.Literal('OR')]),
    children: Type.Array(
      Type.Union([Leaf, Type.Object({ operator: Type.String(), children: Type.Array(Type.Unknown()) })]),
      {
        maxItems: 50,
      },
    ),
  },
  { additionalProperties: false },
);

export const AutomationConfiguration = Type.Object(
  {
    triggers: Type.Optional(
      Type.Array(Type.Union(ALERT_TRIGGERS.map((t) => Type.Literal(t))), { maxItems: 20 }),
    ),
    conditions: Type.Optional(Group),
    actions: Type.Array(
      Type.Object(
        { type: Type.Union(ACTION_TYPES.map((t) => Type.Literal(t))), value: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
  },
  { additionalProperties: false },
);

const WeekdayName = Type.Unsafe<Weekday>(
  Type.Union(
    WEEKDAYS.map((d) => Type.Literal(d)),
    { description: 'A weekday, as OpenCVE writes it.' },
  ),
);

/** An automation in a list: OpenCVE 3.1's list item (no `configuration`). */
export const AutomationItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  is_enabled: Type.Boolean(),
  trigger_type: Type.Union([Type.Literal('alert'), Type.Literal('report')]),
  frequency: Nullable(Type.Union([Type.Literal('daily'), Type.Literal('weekly')])),
  schedule_timezone: Nullable(Type.String()),
  schedule_time: Nullable(
    Type.String({ description: '`HH:MM:SS` in schedule_timezone, as OpenCVE writes it.' }),
  ),
  schedule_weekday: Nullable(WeekdayName),
  last_execution_at: Nullable(Timestamp),
  conditions_count: Type.Integer({ description: 'How many conditions (leaves) the condition tree holds.' }),
});

/** One automation: the list item with its `configuration`. */
export const AutomationDetail = Type.Object({
  ...AutomationItem.properties,
  configuration: Type.Record(Type.String(), Type.Unknown(), {
    description: '`{triggers, conditions, actions}` as created.',
  }),
});

export function automationItem(a: AutomationView) {
  return {
    id: a.id,
    created_at: toMicrosZ(a.created_at),
    updated_at: toMicrosZ(a.updated_at),
    name: a.name,
    is_enabled: a.is_enabled,
    trigger_type: a.trigger_type,
    frequency: a.frequency,
    schedule_timezone: a.schedule_timezone,
    schedule_time: a.schedule_time === null ? null : `${a.schedule_time}:00`,
    schedule_weekday: a.schedule_weekday === null ? null : (WEEKDAYS[a.schedule_weekday] ?? null),
    last_execution_at: a.last_execution_at ? toMicrosZ(a.last_execution_at) : null,
    conditions_count: conditionsCount(a.configuration.conditions),
  };
}

export function automationDetail(a: AutomationView) {
  return { ...automationItem(a), configuration: a.configuration };
}

const CvesTableRow = Type.Object({
  cve_id: Type.String(),
  kev: Type.Boolean(),
  epss: Nullable(Type.Number()),
  cvss_20: Nullable(Type.Number()),
  cvss_30: Nullable(Type.Number()),
  cvss_31: Nullable(Type.Number()),
  cvss_40: Nullable(Type.Number()),
  matched_vendors_or_products: Type.Array(Type.String(), {
    description: 'The subscriptions (vendor keys) the CVE matched.',
  }),
});

const Count = Type.Integer();
const ImpactSummarySchema = Type.Object(
  {
    cves_count: Count,
    kev_count: Count,
    kev_percent: Type.Number(),
    epss_avg: Type.Number(),
    epss_max: Type.Number(),
    average_cvss: Nullable(Type.Number()),
    highest_cvss: Nullable(Type.Number()),
    highest_cvss_version: Nullable(Type.String()),
    cvss_distribution: Type.Object({ Low: Count, Medium: Count, High: Count, Critical: Count }),
    epss_distribution: Type.Object({ low: Count, medium: Count, high: Count }),
    top_vendors_products: Type.Array(Type.Object({ name: Type.String(), count: Count })),
  },
  { description: 'Derived from `cves_table_data` (docs/api-v2.md).' },
);

/** An execution in a list: OpenCVE 3.1's shape (`report_id` is ours). */
export const Execution = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  executed_at: Timestamp,
  window_start: Timestamp,
  window_end: Timestamp,
  matched_cves_count: Type.Integer(),
  impact_summary: Nullable(ImpactSummarySchema),
  cves_table_data: Nullable(
    Type.Array(CvesTableRow, { description: 'The matched CVEs as they were; null before they were kept.' }),
  ),
  report_id: Nullable(Uuid),
});

/** One execution: the list item with its per-action results. */
export const ExecutionDetail = Type.Object({
  ...Execution.properties,
  results: Type.Array(
    Type.Object({
      id: Uuid,
      output_type: Type.String({ description: 'notification_sent, assignment, status_change or report.' }),
      label: Type.String(),
      status: Type.Union([Type.Literal('success'), Type.Literal('skipped'), Type.Literal('failed')]),
      details: Type.Unknown(),
      created_at: Timestamp,
      action: Type.String({ description: 'The action type of the configuration it ran.' }),
    }),
  ),
});

export function executionItem(e: ExecutionRow) {
  const cves = e.cves as ExecutionCve[] | null;
  return {
    id: e.id,
    created_at: toMicrosZ(e.executed_at),
    executed_at: toMicrosZ(e.executed_at),
    window_start: toMicrosZ(e.window_start),
    window_end: toMicrosZ(e.window_end),
    matched_cves_count: e.matched_cves_count,
    impact_summary: cves ? impactSummary(cves) : null,
    cves_table_data: cves,
    report_id: e.report_id,
  };
}

export function executionDetail(e: ExecutionRow) {
  const results = e.results as {
    action: string;
    status: 'success' | 'skipped' | 'failed';
    details: unknown;
  }[];
  return {
    ...executionItem(e),
    results: results.map((r, i) => ({
      id: resultId(e.id, i),
      ...resultOutput(r.action),
      status: r.status,
      details: r.details,
      created_at: toMicrosZ(e.executed_at),
      action: r.action,
    })),
  };
}

const SeverityCounts = Type.Object({
  critical: Type.Integer(),
  high: Type.Integer(),
  medium: Type.Integer(),
  low: Type.Integer(),
  none: Type.Integer(),
});

/** A report in a list: OpenCVE 3.1's item, and ours (`link`, `automation`, `period`, counts). */
export const ReportItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  day: Type.String({ description: 'The first day of the period, in its time zone (`YYYY-MM-DD`).' }),
  period_type: Type.Union([Type.Literal('daily'), Type.Literal('weekly')]),
  period_timezone: Type.String({
    description: "The time zone of the automation's schedule (UTC without one).",
  }),
  cves_count: Type.Integer(),
  link: Type.String({ description: 'The 12-character report link (API v1 report id).' }),
  automation: Nullable(Type.String()),
  period: Type.Object({ start: Timestamp, end: Timestamp }),
  highest_cvss: Nullable(Type.Number()),
  severity_counts: SeverityCounts,
});

export const ReportDetailSchema = Type.Object({
  ...ReportItem.properties,
  ai_summary: Type.Null({
    description: "OpenCVE's AI summary `{html}`: vulntrack writes none, so always null.",
  }),
  cves: Type.Array(
    Type.Object({
      created_at: Nullable(Timestamp),
      updated_at: Nullable(Timestamp),
      cve_id: Type.String(),
      description: Nullable(Type.String()),
      title: Nullable(Type.String()),
      cvss31: Nullable(Type.Number()),
      highest_cvss: Nullable(Type.Number()),
      kev: Type.Boolean(),
      epss: Nullable(Type.Number()),
      matched_keys: Type.Array(Type.String()),
      event_types: Type.Array(Type.String()),
      events: Type.Array(Type.Object({ type: Type.String(), details: Type.Unknown() })),
      changes: Type.Array(
        Type.Object({
          id: Uuid,
          created_at: Timestamp,
          types: Type.Array(Type.String()),
          data: Type.Unknown(),
        }),
      ),
    }),
  ),
});

export function reportItem(r: ReportRow) {
  const timeZone = r.automation_timezone ?? 'UTC';
  return {
    id: r.id,
    created_at: toMicrosZ(r.created_at),
    // A report never changes once made.
    updated_at: toMicrosZ(r.created_at),
    day: localDay(r.period_start, timeZone),
    period_type: reportPeriodType(r.period_start, r.period_end),
    period_timezone: timeZone,
    cves_count: r.summary.cves_count,
    link: r.link,
    automation: r.automation_name,
    period: { start: toMicrosZ(r.period_start), end: toMicrosZ(r.period_end) },
    highest_cvss: r.summary.highest_cvss,
    severity_counts: r.summary.severity_counts,
  };
}

export function reportDetail(r: ReportDetail) {
  return {
    ...reportItem(r.report),
    ai_summary: null,
    cves: r.cves.map((c) => ({
      ...c,
      created_at: c.created_at && toSecondsZ(c.created_at),
      updated_at: c.updated_at && toSecondsZ(c.updated_at),
      changes: c.changes.map((ch) => ({ ...ch, created_at: toMicrosZ(ch.created_at) })),
    })),
  };
}
