/**
 * What alert runs (EventProcessor) and report runs (ReportService) share: the CVE as conditions and
 * payloads see it, whether a `send_notification` may send, and the tracker actions. One place, so
 * both kinds of execution record the same results for the same situation.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { NotificationRow } from '../db/notification.repository.ts';
import type { AutomationAction, ConditionSubject } from '../domain/automation.ts';
import type { CveFacts } from '../domain/cve-facts.ts';
import type { TriageStatus } from '../domain/triage.ts';
import type { NotificationCve } from '../notifications/payload.ts';
import { vendorKeyLabel } from '../domain/cpe.ts';
import type { TrackerAutomation } from './tracker-automation.service.ts';

export interface ActionResult {
  action: string;
  status: 'success' | 'skipped' | 'failed';
  details: Record<string, unknown>;
}

/** The payload entry of a CVE (docs/notifications.md `changes[].cve`). */
export function payloadCve(cveId: string, cve: CveFacts): NotificationCve {
  return {
    cve_id: cveId,
    title: cve.title,
    description: cve.description,
    cvss31: cve.cvss31,
    kev: cve.kev,
    epss: cve.epss,
    vendors: cve.vendors,
    display: { vendors: cve.vendors.map(vendorKeyLabel) },
  };
}

/** What conditions look at: the CVE now, and the project's tracker entry for it (if any). */
export function conditionSubject(
  cve: CveFacts,
  tracker: { status: string | null; assignee: string | null } | undefined,
): ConditionSubject {
  return {
    ...cve,
    status: tracker?.status ?? null,
    assignee: tracker?.assignee ?? null,
  };
}

/**
 * The result of a `send_notification` that cannot send (no such notification, or disabled), or
 * undefined when it may.
 */
export function notificationRefusal(
  action: AutomationAction,
  notification: NotificationRow | undefined,
): ActionResult | undefined {
  if (!notification) {
    return {
      action: action.type,
      status: 'failed',
      details: { error: `no notification named ${String(action.value)}` },
    };
  }
  if (!notification.is_enabled) {
    return {
      action: action.type,
      status: 'skipped',
      details: { notification: notification.name, reason: 'disabled' },
    };
  }
  return undefined;
}

/** `assign_user` (else `change_status`) on the matched CVEs, in the caller's transaction. */
export async function trackerAction(
  tracker: Pick<TrackerAutomation, 'applyAutomation'>,
  tx: Transaction<DB>,
  automation: { name: string; project_id: string },
  organizationId: string,
  action: AutomationAction,
  cveIds: string[],
): Promise<ActionResult> {
  if (!cveIds.length) return { action: action.type, status: 'skipped', details: { changed: 0 } };
  const patch =
    action.type === 'assign_user'
      ? { assignee: action.value as string | null }
      : { status: action.value as TriageStatus | null };
  const actor = { type: 'system' as const, id: null, name: `automation:${automation.name}` };
  const r = await tracker.applyAutomation(tx, organizationId, automation.project_id, cveIds, patch, actor);
  if ('error' in r) return { action: action.type, status: 'failed', details: { error: r.error } };
  return { action: action.type, status: r.changed ? 'success' : 'skipped', details: { changed: r.changed } };
}
