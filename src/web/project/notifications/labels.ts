/** The fixed texts and the URLs of the notification pages: each channel's label and hint, the `?done=` notices. */
import { NO_EMAIL_SERVER } from '../../../domain/notification.ts';
import { projectPath } from '../../kit/paths.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { ChannelType } from './channel.form.ts';

/** Each channel as the create form offers it, in its tabs' order. */
export const TYPES: { type: ChannelType; label: string; hint: string }[] = [
  {
    type: 'email',
    label: 'Email',
    hint: 'An address outside the organization confirms first (double opt-in).',
  },
  { type: 'webhook', label: 'Webhook', hint: 'A signed JSON POST (Standard Webhooks) to your URL.' },
  { type: 'slack', label: 'Slack', hint: 'A Slack incoming-webhook URL.' },
  { type: 'teams', label: 'Teams', hint: 'A Microsoft Teams Workflows webhook URL.' },
];

/** A channel's name as shown (`Email`, `Webhook`…). */
export const typeLabel = (type: string) => TYPES.find((t) => t.type === type)?.label ?? type;

/** Fixed texts of `?done=<code>`. */
export const DONE: Record<string, string> = {
  created: 'The notification was created.',
  'created-pending':
    'The notification was created. A confirmation email is on its way: it stays disabled until the address confirms.',
  'created-no-email': `The notification was created. ${NO_EMAIL_SERVER}`,
  'no-email-server': NO_EMAIL_SERVER,
  saved: 'The notification was saved.',
  enabled: 'The notification was enabled.',
  disabled: 'The notification was disabled: nothing is sent until it is enabled again.',
  deleted: 'The notification and its delivery log were deleted.',
  resent: 'The confirmation email was sent again.',
  'not-pending': 'This address is not awaiting its confirmation: nothing was sent.',
  retried: 'The delivery was queued for one more attempt, now.',
  tried: 'The test was sent. Here is what went out and what came back.',
  'try-failed': 'The test failed: nothing was delivered. The attempt below says why.',
};

/** The project's notifications page, or a page under it (`rest`). */
export const notificationsPath = (access: ProjectAccess, rest = '') =>
  projectPath(access.membership.name, access.project.name, `notifications${rest}`);

/** One notification's page, or a page under it (`rest`). */
export const notificationPath = (access: ProjectAccess, name: string, rest = '') =>
  notificationsPath(access, `/${encodeURIComponent(name)}${rest}`);
