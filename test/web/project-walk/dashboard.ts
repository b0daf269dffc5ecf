import type { WalkRoute } from './walk.ts';

/** Projects list, onboarding, settings, subscriptions. */
export const dashboardRoutes: WalkRoute[] = [{ method: 'GET', url: '/org/:org/projects', allowed: 'member' }];
