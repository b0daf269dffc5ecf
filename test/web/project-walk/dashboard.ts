import type { WalkRoute } from './walk.ts';

/** Projects list, onboarding, dashboards, settings, subscriptions. */
export const dashboardRoutes: WalkRoute[] = [
  { method: 'GET', url: '/org/:org/projects', allowed: 'member' },
  { method: 'GET', url: '/org/:org/projects/:project', allowed: 'member' },
];
