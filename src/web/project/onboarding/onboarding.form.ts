/**
 * The onboarding's forms: what each step reads from its body into the draft, the vendors step's add
 * and remove, and the finished draft as OnboardingService's input. Pure: the routes keep the draft in
 * the session and call the services.
 */
import { validationError } from '../../../domain/errors.ts';
import { parseKeywords } from '../../../domain/keywords.ts';
import type { OnboardingDraft } from '../../../services/onboarding.service.ts';
import { field, type FormErrors } from '../../kit/input.ts';

/** What the steps collected so far. */
export interface ProjectDraft {
  org: string;
  name: string;
  description: string;
  subscriptions: string[];
  /** Watched keywords, normalized (absent in a draft saved before they existed). */
  keywords?: string[];
  alertType: '' | 'email' | 'webhook';
  alertTarget: string;
  weeklyReport: boolean;
}

/** A draft holds at most this many vendors and products (more can be added on the project's page). */
export const DRAFT_MAX_SUBSCRIPTIONS = 200;

/** A new draft for `org`: nothing typed yet, the weekly report on. */
export const emptyDraft = (org: string): ProjectDraft => ({
  org,
  name: '',
  description: '',
  subscriptions: [],
  keywords: [],
  alertType: '',
  alertTarget: '',
  weeklyReport: true,
});

/** Step 1's fields as typed (trimmed). */
export const nameStepOf = (body: unknown): Pick<ProjectDraft, 'name' | 'description'> => ({
  name: field(body, 'name').trim(),
  description: field(body, 'description').trim(),
});

/** Step 2's candidate search, from the query or the body (trimmed, at most 200 characters). */
export const searchOf = (input: unknown): string => {
  const value = (input as Record<string, unknown> | undefined)?.search;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
};

/**
 * Step 2's chosen vendor keys after adding `add` (when the catalog has it: `addKnown`) and removing
 * `remove` (either may be ''); a validation error on `add` for an unknown key or a full draft.
 */
export function changeSubscriptions(
  subscriptions: readonly string[],
  { add, remove, addKnown }: { add: string; remove: string; addKnown: boolean },
): string[] {
  let next = [...subscriptions];
  if (add) {
    if (!addKnown)
      throw validationError({
        add: ['The catalog has no such vendor or product: search again and press Add.'],
      });
    if (!next.includes(add)) {
      if (next.length >= DRAFT_MAX_SUBSCRIPTIONS)
        throw validationError({
          add: [
            `At most ${DRAFT_MAX_SUBSCRIPTIONS} vendors and products here; add more on the project's Subscriptions page once it exists.`,
          ],
        });
      next = [...next, add];
    }
  }
  if (remove) next = next.filter((k) => k !== remove);
  return next;
}

/**
 * Step 2's keywords from the textarea (one per line): normalized, as the project will store them; a
 * validation error under `keywords` for a keyword refused (domain/keywords.ts).
 */
export function keywordsStepOf(body: unknown): string[] {
  const typed = field(body, 'keywords')
    .split(/\r?\n/)
    .map((k) => k.trim())
    .filter(Boolean);
  const parsed = parseKeywords(typed);
  if ('errors' in parsed) throw validationError(parsed.errors);
  return parsed.keywords;
}

/** The draft with step 3's fields as typed (an alert type not offered reads as no alert). */
export function withAlerts(draft: ProjectDraft, body: unknown): ProjectDraft {
  const alertType = field(body, 'alert');
  return {
    ...draft,
    alertType: alertType === 'email' || alertType === 'webhook' ? alertType : '',
    alertTarget: field(body, 'alert_target').trim(),
    weeklyReport: field(body, 'weekly_report') === 'on',
  };
}

/**
 * OnboardingService's input from the finished draft (`draft` already `withAlerts(…, body)`); a
 * validation error for an alert type not offered, or an alert without its address or URL.
 */
export function onboardingInputOf(draft: ProjectDraft, body: unknown, timeZone: string): OnboardingDraft {
  const alertType = field(body, 'alert');
  if (alertType !== '' && alertType !== 'email' && alertType !== 'webhook')
    throw validationError({ alert: ['Choose no alert, email or webhook.'] });
  if (draft.alertType && !draft.alertTarget)
    throw validationError({
      alert_target: [
        draft.alertType === 'email'
          ? 'Type the email address to alert, or choose no alert.'
          : 'Type the webhook URL to alert, or choose no alert.',
      ],
    });
  return {
    name: draft.name,
    description: draft.description,
    subscriptions: draft.subscriptions,
    keywords: draft.keywords ?? [],
    alert: draft.alertType ? { type: draft.alertType, target: draft.alertTarget } : undefined,
    weeklyReport: draft.weeklyReport,
    timeZone,
  };
}

/**
 * Step 3's errors placed on its fields: the service names an alert's problems `alert`, and when an
 * alert was chosen they belong beside the address field.
 */
export function placeAlertErrors(errors: FormErrors, draft: ProjectDraft): FormErrors {
  if (!errors.alert || !draft.alertType) return errors;
  const { alert, ...rest } = errors;
  return { ...rest, alert_target: [...(errors.alert_target ?? []), ...alert] };
}
