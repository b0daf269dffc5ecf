import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/errors.ts';
import {
  changeSubscriptions,
  DRAFT_MAX_SUBSCRIPTIONS,
  emptyDraft,
  keywordsStepOf,
  nameStepOf,
  onboardingInputOf,
  placeAlertErrors,
  searchOf,
  withAlerts,
} from './onboarding.form.ts';

/** The details of the validation error `run` throws. */
function detailsOf(run: () => unknown): Record<string, string[]> | undefined {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_error');
    return (err as AppError).details;
  }
  throw new Error('expected a validation error');
}

describe('nameStepOf', () => {
  it('trims the name and description, and reads a missing field as empty', () => {
    expect(nameStepOf({ name: '  Payments ', description: ['x'] })).toEqual({
      name: 'Payments',
      description: '',
    });
  });
});

describe('searchOf', () => {
  it('trims the search and cuts it to 200 characters', () => {
    expect(searchOf({ search: '  apache  ' })).toBe('apache');
    expect(searchOf({ search: 'a'.repeat(250) })).toHaveLength(200);
  });

  it('reads anything but one string as no search', () => {
    expect(searchOf({ search: ['a', 'b'] })).toBe('');
    expect(searchOf(undefined)).toBe('');
  });
});

describe('changeSubscriptions', () => {
  it('adds a key the catalog has once, and removes a key', () => {
    expect(changeSubscriptions(['apache'], { add: 'nginx', remove: '', addKnown: true })).toEqual([
      'apache',
      'nginx',
    ]);
    expect(changeSubscriptions(['apache'], { add: 'apache', remove: '', addKnown: true })).toEqual([
      'apache',
    ]);
    expect(changeSubscriptions(['apache', 'nginx'], { add: '', remove: 'apache', addKnown: false })).toEqual([
      'nginx',
    ]);
  });

  it('refuses a key the catalog does not have, on the add field', () => {
    const details = detailsOf(() => changeSubscriptions([], { add: 'nope', remove: '', addKnown: false }));
    expect(details?.add?.[0]).toMatch(/no such vendor or product/);
  });

  it('refuses a new key when the draft is full, but not one it already holds', () => {
    const full = Array.from({ length: DRAFT_MAX_SUBSCRIPTIONS }, (_, i) => `vendor${i}`);
    const details = detailsOf(() => changeSubscriptions(full, { add: 'nginx', remove: '', addKnown: true }));
    expect(details?.add?.[0]).toMatch(/At most 200/);
    expect(changeSubscriptions(full, { add: 'vendor0', remove: '', addKnown: true })).toHaveLength(
      DRAFT_MAX_SUBSCRIPTIONS,
    );
  });
});

describe('withAlerts', () => {
  it("keeps step 3's fields as typed, an alert type not offered read as none", () => {
    const draft = { ...emptyDraft('acme'), name: 'Payments' };
    expect(withAlerts(draft, { alert: 'email', alert_target: ' sec@example.com ' })).toMatchObject({
      name: 'Payments',
      alertType: 'email',
      alertTarget: 'sec@example.com',
      weeklyReport: false,
    });
    expect(withAlerts(draft, { alert: 'sms', weekly_report: 'on' })).toMatchObject({
      alertType: '',
      weeklyReport: true,
    });
  });
});

describe('onboardingInputOf', () => {
  const draft = { ...emptyDraft('acme'), name: 'Payments', subscriptions: ['apache'], keywords: ['xz'] };

  it("makes the service's input, with the alert only when one is chosen", () => {
    const body = { alert: 'webhook', alert_target: 'https://hooks.example.com/x' };
    expect(onboardingInputOf(withAlerts(draft, body), body, 'Europe/Paris')).toEqual({
      name: 'Payments',
      description: '',
      subscriptions: ['apache'],
      keywords: ['xz'],
      alert: { type: 'webhook', target: 'https://hooks.example.com/x' },
      weeklyReport: false,
      timeZone: 'Europe/Paris',
    });
    expect(onboardingInputOf(withAlerts(draft, {}), {}, 'UTC').alert).toBeUndefined();
    // A draft saved in the session before keywords existed has none.
    const { keywords: _, ...old } = draft;
    expect(onboardingInputOf(old, {}, 'UTC').keywords).toEqual([]);
  });

  it('refuses an alert type not offered', () => {
    const body = { alert: 'sms' };
    expect(detailsOf(() => onboardingInputOf(withAlerts(draft, body), body, 'UTC'))).toEqual({
      alert: ['Choose no alert, email or webhook.'],
    });
  });

  it('refuses an alert without its address, beside the address field', () => {
    const body = { alert: 'email', alert_target: '  ' };
    expect(detailsOf(() => onboardingInputOf(withAlerts(draft, body), body, 'UTC'))).toEqual({
      alert_target: ['Type the email address to alert, or choose no alert.'],
    });
  });
});

describe('placeAlertErrors', () => {
  it("moves the service's alert errors beside the address when an alert was chosen", () => {
    const chosen = { ...emptyDraft('acme'), alertType: 'email' as const };
    expect(placeAlertErrors({ alert: ['bad address'], name: ['taken'] }, chosen)).toEqual({
      name: ['taken'],
      alert_target: ['bad address'],
    });
  });

  it('leaves them on the alert choice when no alert was chosen', () => {
    const errors = { alert: ['Choose no alert, email or webhook.'] };
    expect(placeAlertErrors(errors, emptyDraft('acme'))).toEqual(errors);
  });
});

describe('keywordsStepOf', () => {
  it('reads one keyword per line, normalized, blank lines and duplicates left out', () => {
    expect(keywordsStepOf({ keywords: ' XZ \r\n\r\nlog4j   core\nxz\n' })).toEqual(['xz', 'log4j core']);
    expect(keywordsStepOf({})).toEqual([]);
  });

  it('refuses a keyword as the keywords PUT does, under `keywords`', () => {
    expect(detailsOf(() => keywordsStepOf({ keywords: 'xz\nx' }))).toEqual({
      keywords: ["'x' is too short: a keyword has 2 to 100 characters."],
    });
  });
});
