import type { WalkRoute } from './walk.ts';

export const notificationRoutes: WalkRoute[] = [];
