/** An organization page's frame: its heading, the tabs (owner-only ones hidden from members), a done notice. */
import type { ComponentChildren } from 'preact';
import type { OrgAccess } from '../kit/access.ts';
import type { PageContext } from '../kit/context.ts';
import { Notice } from '../kit/fields.tsx';
import { doneText } from '../kit/input.ts';
import { Layout } from '../kit/layout.tsx';
import { orgPath } from '../kit/paths.ts';

export type OrgTab = 'general' | 'members' | 'reports' | 'tokens' | 'audit';

const TABS: { key: OrgTab; label: string; path: string; ownersOnly: boolean }[] = [
  { key: 'general', label: 'General', path: '', ownersOnly: false },
  { key: 'members', label: 'Members', path: 'members', ownersOnly: false },
  { key: 'reports', label: 'Weekly report', path: 'reports', ownersOnly: false },
  { key: 'tokens', label: 'API tokens', path: 'tokens', ownersOnly: true },
  { key: 'audit', label: 'Audit log', path: 'audit', ownersOnly: true },
];

/** Fixed texts of `?done=<code>` after a successful form (never text from the request). */
const DONE: Record<string, string> = {
  created: 'The organization was created. You are its owner.',
  renamed: 'The organization was renamed.',
  invited: 'The invitation was emailed.',
  resent: 'The invitation was emailed again, with a new link; the earlier link no longer works.',
  role: 'The role was changed.',
  removed: 'The member was removed.',
  withdrawn: 'The invitation was withdrawn; its link no longer works.',
  revoked: 'The token was revoked: it stops working on its next request.',
  joined: 'Welcome: you joined the organization.',
};

export function doneNotice(query: unknown): string | undefined {
  return doneText(DONE, query);
}

/** An organization page: its heading, the tabs (owner-only ones hidden from members), a done notice. */
export function OrgPage({
  ctx,
  access,
  tab,
  title,
  done,
  children,
}: {
  ctx: PageContext;
  access: OrgAccess;
  tab: OrgTab;
  title: string;
  done?: string | undefined;
  children: ComponentChildren;
}) {
  const org = access.membership.name;
  return (
    <Layout ctx={ctx} title={`${title} · ${org}`} section="organization">
      <div class="page-head">
        <div>
          <div class="crumbs">Organization</div>
          <h1>{org}</h1>
        </div>
        <span class="badge neutral">{access.membership.role}</span>
      </div>
      <nav class="tabs" aria-label="Organization">
        {TABS.filter((t) => access.isOwner || !t.ownersOnly).map((t) => (
          <a href={orgPath(org, t.path)} aria-current={t.key === tab ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      {done && <Notice>{done}</Notice>}
      {children}
    </Layout>
  );
}
