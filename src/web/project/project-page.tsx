/** A project page's frame: crumbs, the project's name, its tabs, a done notice, the content. */
import type { ComponentChildren } from 'preact';
import type { ProjectAccess } from '../kit/access.ts';
import type { PageContext } from '../kit/context.ts';
import { Notice } from '../kit/fields.tsx';
import { Layout } from '../kit/layout.tsx';
import { orgPath, projectPath } from '../kit/paths.ts';

export type ProjectTab =
  | 'dashboard'
  | 'tracker'
  | 'subscriptions'
  | 'inventory'
  | 'notifications'
  | 'automations'
  | 'reports'
  | 'settings';

const TABS: { key: ProjectTab; label: string; path: string }[] = [
  { key: 'dashboard', label: 'Dashboard', path: '' },
  { key: 'tracker', label: 'Tracker', path: 'cves' },
  { key: 'subscriptions', label: 'Subscriptions', path: 'subscriptions' },
  { key: 'inventory', label: 'Inventory', path: 'inventories' },
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
