import type { WalkRoute } from './walk.ts';

/** The project dashboard and its feed. */
export const projectDashboardRoutes: WalkRoute[] = [
  { method: 'GET', url: '/org/:org/projects/:project', allowed: 'member' },
];
