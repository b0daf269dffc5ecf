import type { WalkRoute } from './walk.ts';

/** Projects list, onboarding, settings, subscriptions. */
export const dashboardRoutes: WalkRoute[] = [
  { method: 'GET', url: '/org/:org/projects', allowed: 'member' },
  { method: 'GET', url: '/org/:org/projects/:project/settings', allowed: 'member' },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/settings',
    allowed: 'owner',
    // The same name (a rename would move every later URL): only the description changes.
    form: { name: ':project', description: 'Described by the tenancy walk' },
  },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/settings/active',
    allowed: 'owner',
    form: { active: 'true' },
  },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/settings/delete',
    allowed: 'owner',
    form: { confirm: ':project' },
    last: true,
  },
  { method: 'GET', url: '/org/:org/projects/:project/subscriptions', allowed: 'member' },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/subscriptions',
    allowed: 'owner',
    form: { add: 'adobe' },
  },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/subscriptions/remove',
    allowed: 'owner',
    form: { remove: 'adobe' },
  },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/subscriptions/keywords',
    allowed: 'owner',
    form: { keywords: 'xz' },
  },
];
