/** Projects: the list and onboarding, each project's dashboard and feed, tracker, CVE pages, subscriptions, inventories (SBOMs), notifications, automations, reports and settings. Registers each page of the feature; the only module that imports them. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../kit/context.ts';
import { projectListRoutes } from './list.routes.tsx';
import { projectOnboardingRoutes } from './onboarding/onboarding.routes.tsx';
import { projectDashboardRoutes } from './dashboard/dashboard.routes.tsx';
import { feedRoutes } from './feed.routes.tsx';
import { projectTrackerRoutes } from './tracker/tracker.routes.tsx';
import { projectCveRoutes } from './cve/cve.routes.tsx';
import { projectSubscriptionsRoutes } from './subscriptions.routes.tsx';
import { projectInventoryRoutes } from './inventory/inventory.routes.tsx';
import { projectNotificationsRoutes } from './notifications/notifications.routes.tsx';
import { projectAutomationsRoutes } from './automations/automations.routes.tsx';
import { projectReportsRoutes } from './reports.routes.tsx';
import { projectSettingsRoutes } from './settings.routes.tsx';

export const projectPages: FastifyPluginAsync<WebOptions> = async (app, options) => {
  await app.register(projectListRoutes, options);
  await app.register(projectOnboardingRoutes, options);
  await app.register(projectDashboardRoutes, options);
  await app.register(feedRoutes, options);
  await app.register(projectTrackerRoutes, options);
  await app.register(projectCveRoutes, options);
  await app.register(projectSubscriptionsRoutes, options);
  await app.register(projectInventoryRoutes, options);
  await app.register(projectNotificationsRoutes, options);
  await app.register(projectAutomationsRoutes, options);
  await app.register(projectReportsRoutes, options);
  await app.register(projectSettingsRoutes, options);
};
