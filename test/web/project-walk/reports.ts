import type { WalkRoute } from './walk.ts';

export const reportRoutes: WalkRoute[] = [];
