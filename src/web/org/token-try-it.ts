/**
 * The API path of a new token's "Try it" line: one its scopes allow (a token without scopes may read
 * everything its organization holds), so the first call a person makes with it answers, never 403.
 */

/** The read endpoints to try, in the order they are offered; `{project}` needs a project's name. */
const TRIES: readonly { area: string; path: string }[] = [
  { area: 'org', path: '/organizations/{org}' },
  { area: 'projects', path: '/organizations/{org}/projects' },
  { area: 'catalog', path: '/cves' },
  { area: 'members', path: '/organizations/{org}/members' },
  { area: 'audit_logs', path: '/organizations/{org}/audit-logs' },
  { area: 'subscriptions', path: '/organizations/{org}/projects/{project}/subscriptions' },
  { area: 'tracker', path: '/organizations/{org}/projects/{project}/cves' },
  { area: 'notifications', path: '/organizations/{org}/projects/{project}/notifications' },
  { area: 'automations', path: '/organizations/{org}/projects/{project}/automations' },
  { area: 'reports', path: '/organizations/{org}/projects/{project}/reports' },
];

/** Where a project's name goes when the organization has none yet. */
export const PROJECT_PLACEHOLDER = 'PROJECT';

/**
 * The `/api/v2` path to try with a token of `scopes` (a write scope holds its area's read scope)
 * in organization `org`; `project` fills a project-level path (`PROJECT` when there is none).
 */
export function tryItPath(org: string, scopes: readonly string[], project: string | undefined): string {
  const held = (area: string) =>
    scopes.length === 0 || scopes.includes(`${area}:read`) || scopes.includes(`${area}:write`);
  const tried = TRIES.find((t) => held(t.area)) ?? TRIES[0]!;
  return `/api/v2${tried.path
    .replace('{org}', encodeURIComponent(org))
    .replace('{project}', project === undefined ? PROJECT_PLACEHOLDER : encodeURIComponent(project))}`;
}

/** Whether the path needs a project's name the organization does not have yet. */
export const needsProject = (path: string): boolean => path.includes(`/projects/${PROJECT_PLACEHOLDER}/`);
