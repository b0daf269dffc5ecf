import type { WalkRoute } from './walk.ts';

const r = '/org/:org/projects/:project/reports';

/** Reports: `:report` is a report of the weekly report automation `:reportAutomation`. */
export const reportRoutes: WalkRoute[] = [
  { method: 'GET', url: r, allowed: 'member' },
  { method: 'POST', url: `${r}/generate`, allowed: 'owner', form: { automation: ':reportAutomation' } },
  { method: 'GET', url: `${r}/:report`, allowed: 'member' },
  { method: 'GET', url: `${r}/:report/csv`, allowed: 'member' },
];
