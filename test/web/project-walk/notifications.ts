import type { WalkRoute } from './walk.ts';

const n = '/org/:org/projects/:project/notifications';

/**
 * Notifications: `:notification` is a webhook to a loopback address (the walk's app refuses it at
 * send time, so Try fails at once), `:delivery` a failed delivery of it.
 */
export const notificationRoutes: WalkRoute[] = [
  { method: 'GET', url: n, allowed: 'member' },
  { method: 'GET', url: `${n}/new`, allowed: 'owner' },
  {
    method: 'POST',
    url: n,
    allowed: 'owner',
    form: { type: 'slack', name: 'walk-slack', webhook_url: 'https://hooks.slack.com/services/T0/B0/walk' },
  },
  { method: 'GET', url: `${n}/:notification`, allowed: 'member' },
  { method: 'POST', url: `${n}/:notification`, allowed: 'owner', form: { name: ':notification' } },
  { method: 'POST', url: `${n}/:notification/state`, allowed: 'owner', form: { enabled: 'true' } },
  { method: 'POST', url: `${n}/:notification/try`, allowed: 'owner' },
  { method: 'POST', url: `${n}/:notification/rotate-secret`, allowed: 'owner' },
  { method: 'POST', url: `${n}/:notification/resend-confirmation`, allowed: 'owner' },
  { method: 'GET', url: `${n}/:notification/deliveries`, allowed: 'member' },
  { method: 'GET', url: `${n}/:notification/deliveries/:delivery`, allowed: 'member' },
  { method: 'POST', url: `${n}/:notification/deliveries/:delivery/retry`, allowed: 'owner' },
  { method: 'POST', url: `${n}/:notification/delete`, allowed: 'owner', last: true },
];
