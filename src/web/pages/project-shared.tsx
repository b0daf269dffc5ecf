/**
 * What the project pages share: the project of the URL (`/org/<org>/projects/<project>/…`) for a
 * member of its organization (404 for anyone else, and for a project that does not exist or is
 * inactive, except its settings page), who may change what, the tabs and the frame.
 *
 * Roles: every member of the organization reads every project page and triages (status, assignee,
 * tags, comments, bulk edits); changing what a project is (its settings, subscriptions,
 * notifications, automations, report schedule) is for owners, as on OpenCVE: a member gets 403.
 */
import type { FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { AppError } from '../../domain/errors.ts';
import type { ProjectRow } from '../../domain/project.ts';
import { Notice } from '../components.tsx';
import { Layout, type PageContext } from '../page.tsx';
import type { WebServices } from '../web.plugin.ts';
import { orgAccess, orgPath, type OrgAccess } from './org-shared.tsx';

export interface ProjectAccess extends OrgAccess {
  project: ProjectRow;
}

/**
 * The project `:project` of the organization `:org` for a member (404 otherwise). An inactive
 * project is a 404 for every page but its settings (`inactiveToo`), as its API v2 resources are.
 */
export async function projectAccess(
  services: Pick<WebServices, 'webSessions' | 'projects'>,
  request: FastifyRequest,
  { inactiveToo = false }: { inactiveToo?: boolean } = {},
): Promise<ProjectAccess> {
  const access = await orgAccess(services, request);
  const name = (request.params as { project?: unknown }).project;
  if (typeof name !== 'string') throw new AppError('not_found');
  const orgId = access.membership.organizationId;
  const project = inactiveToo
    ? await services.projects.find(orgId, name)
    : await services.projects.findActive(orgId, name);
  return { ...access, project };
}

/** Owners only (403 for members, with a sentence saying whom to ask). */
export function assertCanConfigure(access: OrgAccess): void {
  if (!access.isOwner)
    throw new AppError(
      'permission_denied',
      `Only owners of ${access.membership.name} can change a project's settings, subscriptions, notifications, automations and reports. Ask one of them.`,
    );
}

/** `/org/<org>/projects/<project>[/<tab>]`, each part encoded. */
export const projectPath = (org: string, project: string, tab = '') =>
  `${orgPath(org, 'projects')}/${encodeURIComponent(project)}${tab ? `/${tab}` : ''}`;

export type ProjectTab =
  'dashboard' | 'tracker' | 'subscriptions' | 'notifications' | 'automations' | 'reports' | 'settings';

const TABS: { key: ProjectTab; label: string; path: string }[] = [
  { key: 'dashboard', label: 'Dashboard', path: '' },
  { key: 'tracker', label: 'Tracker', path: 'cves' },
  { key: 'subscriptions', label: 'Subscriptions', path: 'subscriptions' },
  { key: 'notifications', label: 'Notifications', path: 'notifications' },
  { key: 'automations', label: 'Automations', path: 'automations' },
  { key: 'reports', label: 'Reports', path: 'reports' },
  { key: 'settings', label: 'Settings', path: 'settings' },
];

/** A project page: crumbs, the project's name, its tabs, a done notice, the content. */
export function ProjectPage({
  ctx,
  access,
  tab,
  title,
  done,
  actions,
  scripts,
  shortcuts,
  children,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  tab: ProjectTab;
  /** The page's own title (the tab's label, or e.g. a notification's name). */
  title: string;
  done?: string | undefined;
  /** Buttons or links at the right of the heading. */
  actions?: ComponentChildren;
  scripts?: Parameters<typeof Layout>[0]['scripts'];
  /** The page's own keyboard shortcuts (the `?` dialog lists them). */
  shortcuts?: Parameters<typeof Layout>[0]['shortcuts'];
  children: ComponentChildren;
}) {
  const org = access.membership.name;
  const project = access.project;
  return (
    <Layout
      ctx={ctx}
      title={`${title} · ${project.name}`}
      section="projects"
      scripts={scripts}
      shortcuts={shortcuts}
    >
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href={orgPath(org, 'projects')}>{org} projects</a>
          </div>
          <h1>{project.name}</h1>
          {project.description && <p class="muted">{project.description}</p>}
        </div>
        {actions && <div class="head-actions">{actions}</div>}
      </div>
      <nav class="tabs" aria-label="Project">
        {TABS.map((t) => (
          <a href={projectPath(org, project.name, t.path)} aria-current={t.key === tab ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {done && <Notice>{done}</Notice>}
      {children}
    </Layout>
  );
}
