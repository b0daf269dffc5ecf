import type { WalkRoute } from './walk.ts';

/** The project dashboard and its feed. */
export const projectDashboardRoutes: WalkRoute[] = [
  { method: 'GET', url: '/org/:org/projects/:project', allowed: 'member' },
  // Each member makes (or replaces) their own Atom feed URL of the project.
  { method: 'POST', url: '/org/:org/projects/:project/feed', allowed: 'member' },
];
