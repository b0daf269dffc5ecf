/** A person's account as the web UI sees it: preferences and the one-time links sent to them. */

export const THEMES = ['auto', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** How dates are written: `iso` 2024-03-29 14:05, `us` 03/29/2024 2:05 PM, `eu` 29/03/2024 14:05. */
export const DATE_FORMATS = ['iso', 'us', 'eu'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** What a one-time link does when followed: create the first administrator, reset a password, join an organization. */
export type OneTimeLinkPurpose = 'first_admin' | 'password_reset' | 'invitation';

/** A signed-in user, with what every page needs to render for them. */
export interface WebUser {
  id: string;
  username: string;
  email: string;
  isAdmin: boolean;
  timeZone: string;
  dateFormat: DateFormat;
  theme: Theme;
}

/** A user as an operator lists them (`vulntrack user list`): never a secret. */
export interface UserSummary {
  username: string;
  email: string;
  isAdmin: boolean;
  createdAt: Date;
  twoFactor: boolean;
  /** Disabled by a server administrator: cannot sign in. */
  disabled: boolean;
}

/** True for an IANA time zone name this runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
