import type { WalkRoute } from './walk.ts';

export const trackerRoutes: WalkRoute[] = [];
