/** The templates a new automation may start from: their names, what each makes, and their fields. */
import { EMPTY_FORM, type AutomationForm, type LeafForm } from './builder.form.ts';

/** The templates a new automation may start from. */
export const TEMPLATES = {
  critical: 'New critical CVE',
  kev: 'New KEV CVE',
  weekly: 'Weekly summary',
  triage: 'Auto-triage KEV CVEs',
} as const;
export type TemplateKey = keyof typeof TEMPLATES;

/** What each template makes, in a sentence. */
export const TEMPLATE_HINTS: Record<TemplateKey, string> = {
  critical: 'Notify when a CVE with CVSS 9 or more (3.1 or 4.0) enters the project.',
  kev: 'Notify when a CVE of the project is in CISA KEV: on entering, or when KEV adds it.',
  weekly: 'A report of the week every Monday at 08:00 UTC, sent to a notification.',
  triage: 'A KEV CVE that enters the project, unassigned: set to "to evaluate" and assign it to you.',
};

/** The template `?template=` names, if it is one. */
export function templateOf(query: unknown): TemplateKey | undefined {
  const t = (query as { template?: unknown } | undefined)?.template;
  return typeof t === 'string' && Object.hasOwn(TEMPLATES, t) ? (t as TemplateKey) : undefined;
}

/** The builder's fields of a template (`notification`: the project's first, `email`: the user's). */
export function templateForm(key: TemplateKey, notification: string, email: string): AutomationForm {
  const leaf = (type: string, value = '', version = '3.1'): LeafForm => ({
    kind: 'leaf',
    type,
    value,
    version,
  });
  const notify = { type: 'send_notification', value: notification };
  switch (key) {
    case 'critical':
      return {
        ...EMPTY_FORM,
        name: 'New critical CVE',
        triggers: ['cve_enters_project'],
        conditions: {
          kind: 'group',
          operator: 'OR',
          children: [leaf('cvss_gte', '9', '3.1'), leaf('cvss_gte', '9', '4.0')],
        },
        actions: [notify],
      };
    case 'kev':
      return {
        ...EMPTY_FORM,
        name: 'New KEV CVE',
        triggers: ['cve_enters_project', 'kev_added'],
        conditions: { kind: 'group', operator: 'AND', children: [leaf('kev_present', 'yes')] },
        actions: [notify],
      };
    case 'weekly':
      return {
        ...EMPTY_FORM,
        name: 'Weekly summary',
        trigger_type: 'report',
        triggers: [],
        frequency: 'weekly',
        schedule_weekday: 'monday',
        schedule_time: '08:00',
        schedule_timezone: 'UTC',
        actions: [{ type: 'generate_report', value: '' }, notify],
      };
    case 'triage':
      return {
        ...EMPTY_FORM,
        name: 'Auto-triage KEV',
        triggers: ['cve_enters_project', 'kev_added'],
        conditions: {
          kind: 'group',
          operator: 'AND',
          children: [leaf('kev_present', 'yes'), leaf('cve_unassigned')],
        },
        actions: [
          { type: 'change_status', value: 'to_evaluate' },
          { type: 'assign_user', value: email },
        ],
      };
  }
}
