import type { WalkRoute } from './walk.ts';

/** The tracker: the list, its CSV, a row's move and the bulk edit (every member triages). */
export const trackerRoutes: WalkRoute[] = [
  { method: 'GET', url: '/org/:org/projects/:project/cves', allowed: 'member' },
  { method: 'GET', url: '/org/:org/projects/:project/cves/export.csv', allowed: 'member' },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/cves/:cve/move',
    allowed: 'member',
    form: { status: 'analysis_in_progress', assignee: '', back: 'kev=true' },
  },
  {
    method: 'POST',
    url: '/org/:org/projects/:project/cves/bulk',
    allowed: 'member',
    form: { scope: 'selected', cve: [':cve'], filter: '', set_status: 'to_evaluate', add_tags: 'walked' },
  },
];
