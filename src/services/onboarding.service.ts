/**
 * A first project in one go (the web UI's onboarding): the project with its subscriptions, and
 * optionally an alert for new critical or KEV CVEs (a notification and an alert automation) and a
 * weekly report (a report automation). Each is made through its own service, with the same
 * validation and audit entries as API v2's calls; a failure after the project exists deletes it
 * again (its notifications and automations go with it), so an error leaves nothing half made.
 */
import type { Actor } from '../domain/actor.ts';
import type { AutomationInput } from './automation.service.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { subscriptionsOfKeys } from '../domain/subscriptions.ts';
import type { AutomationService } from './automation.service.ts';
import type { NotificationInput, NotificationService } from './notification.service.ts';
import type { ProjectDetail, ProjectService } from './project.service.ts';

/** What the onboarding's three steps collected. */
export interface OnboardingDraft {
  name: string;
  description: string;
  /** Vendor keys (`vendor` or `vendor$PRODUCT$product`). */
  subscriptions: string[];
  /** An alert for new critical or KEV CVEs: an email address or a webhook URL. */
  alert?: { type: 'email' | 'webhook'; target: string } | undefined;
  weeklyReport: boolean;
  /** The weekly report's time zone (the user's). */
  timeZone: string;
}

/** Names of what the onboarding makes (the automations and notifications pages show them). */
export const ONBOARDING_NAMES = {
  notification: 'critical-or-kev',
  alert: 'new-critical-or-kev-cve',
  report: 'weekly-report',
} as const;

/** A new CVE of the project whose CVSS (3.1 or 4.0) is at least 9, or that CISA lists as exploited. */
const CRITICAL_OR_KEV = {
  operator: 'OR' as const,
  children: [
    { type: 'cvss_gte' as const, value: { version: '3.1', value: 9 } },
    { type: 'cvss_gte' as const, value: { version: '4.0', value: 9 } },
    { type: 'kev_present' as const, value: true },
  ],
};

export class OnboardingService {
  constructor(
    private readonly projects: Pick<ProjectService, 'create' | 'delete'>,
    private readonly notifications: Pick<NotificationService, 'checkInput' | 'create'>,
    private readonly automations: Pick<AutomationService, 'create'>,
  ) {}

  /**
   * Creates the project and what the draft asks for. 400 (a validation error whose details name the
   * draft's fields: `name`, `description`, `vendors`/`products`, `alert`) before anything is made
   * when the draft is invalid.
   */
  async createProject(organizationId: string, draft: OnboardingDraft, actor: Actor): Promise<ProjectDetail> {
    const notification = draft.alert && notificationOf(draft.alert);
    if (notification) {
      try {
        this.notifications.checkInput(notification);
      } catch (err) {
        if (err instanceof AppError && err.code === 'validation_error')
          throw validationError({ alert: Object.values(err.details ?? {}).flat() });
        throw err;
      }
    }
    const detail = await this.projects.create(
      organizationId,
      { name: draft.name, description: draft.description },
      actor,
      subscriptionsOfKeys(draft.subscriptions),
    );
    const project = detail.project.name;
    try {
      if (notification) {
        await this.notifications.create(organizationId, project, notification, actor);
        await this.automations.create(organizationId, project, alertAutomation(), actor);
      }
      if (draft.weeklyReport)
        await this.automations.create(
          organizationId,
          project,
          reportAutomation(draft.timeZone, notification !== undefined),
          actor,
        );
    } catch (err) {
      await this.projects.delete(organizationId, project, actor);
      throw err;
    }
    return detail;
  }
}

function notificationOf(alert: NonNullable<OnboardingDraft['alert']>): NotificationInput {
  return {
    name: ONBOARDING_NAMES.notification,
    type: alert.type,
    configuration: alert.type === 'email' ? { email: alert.target } : { url: alert.target },
  };
}

/**
 * On a CVE entering the project, added to KEV or its CVSS raised, when it is then critical or in KEV:
 * send the alert notification (a tracked CVE that becomes exploited or critical is the alert that matters most).
 */
function alertAutomation(): AutomationInput {
  return {
    name: ONBOARDING_NAMES.alert,
    trigger_type: 'alert',
    configuration: {
      triggers: ['cve_enters_project', 'kev_added', 'cvss_increased'],
      conditions: CRITICAL_OR_KEV,
      actions: [{ type: 'send_notification', value: ONBOARDING_NAMES.notification }],
    },
  };
}

/** Mondays at 08:00 in the user's time zone; sent through the alert notification when there is one. */
function reportAutomation(timeZone: string, notify: boolean): AutomationInput {
  return {
    name: ONBOARDING_NAMES.report,
    trigger_type: 'report',
    frequency: 'weekly',
    schedule_weekday: 'monday',
    schedule_time: '08:00',
    schedule_timezone: timeZone,
    configuration: {
      actions: [
        { type: 'generate_report' },
        ...(notify ? [{ type: 'send_notification' as const, value: ONBOARDING_NAMES.notification }] : []),
      ],
    },
  };
}
