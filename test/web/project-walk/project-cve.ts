import type { WalkRoute } from './walk.ts';

export const projectCveRoutes: WalkRoute[] = [];
