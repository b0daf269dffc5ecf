import type { WalkRoute } from './walk.ts';

export const automationRoutes: WalkRoute[] = [];
