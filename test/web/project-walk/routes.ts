/**
 * The project pages of the tenancy walk (`test/web/project-tenancy.test.ts`), one list per area so
 * that each area's file names its own routes. Placeholders in a URL or a form (`:org`, `:project`,
 * `:cve`, and the ids of `WalkIds`) are replaced by the walk's fixture.
 */
import { dashboardRoutes } from './dashboard.ts';
import { projectDashboardRoutes } from './project-dashboard.ts';
import { trackerRoutes } from './tracker.ts';
import { projectCveRoutes } from './project-cve.ts';
import { notificationRoutes } from './notifications.ts';
import { automationRoutes } from './automations.ts';
import { reportRoutes } from './reports.ts';
import { inventoryRoutes } from './inventories.ts';
import type { WalkRoute } from './walk.ts';

export const PROJECT_ROUTES: WalkRoute[] = [
  ...dashboardRoutes,
  ...projectDashboardRoutes,
  ...trackerRoutes,
  ...projectCveRoutes,
  ...notificationRoutes,
  ...automationRoutes,
  ...reportRoutes,
  ...inventoryRoutes,
];
