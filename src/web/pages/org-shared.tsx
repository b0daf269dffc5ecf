/**
 * What the organization pages share: who the signed-in user is in the organization of the URL (404
 * when they have not joined it: another organization's pages do not exist for them), the owner rule
 * (403 for members), the tabs, and reading form fields.
 */
import type { FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { Actor } from '../../domain/actor.ts';
import { AppError } from '../../domain/errors.ts';
import type { OrganizationMembership } from '../../services/web-session.service.ts';
import { Notice } from '../components.tsx';
import { Layout, type PageContext } from '../page.tsx';
import type { WebServices } from '../web.plugin.ts';

export interface OrgAccess {
  membership: OrganizationMembership;
  actor: Actor;
  isOwner: boolean;
}

/**
 * The signed-in user's membership of the organization `:org` (not found when they have not joined
 * it); the organization becomes the one the switcher remembers.
 */
export async function orgAccess(
  services: Pick<WebServices, 'webSessions'>,
  request: FastifyRequest,
): Promise<OrgAccess> {
  const user = request.page.user;
  const org = (request.params as { org?: unknown }).org;
  if (!user || typeof org !== 'string') throw new AppError('not_found');
  const membership = await services.webSessions.membership(user.id, org);
  if (request.session.orgName !== membership.name) request.session.orgName = membership.name;
  return {
    membership,
    actor: { type: 'user', id: user.id, name: user.username },
    isOwner: membership.role === 'owner',
  };
}

/** Owners only: a member gets 403 (they may see the organization, not change it). */
export async function ownerAccess(
  services: Pick<WebServices, 'webSessions'>,
  request: FastifyRequest,
): Promise<OrgAccess> {
  const access = await orgAccess(services, request);
  if (!access.isOwner)
    throw new AppError(
      'permission_denied',
      `Only owners of ${access.membership.name} can do this. Ask one of them.`,
    );
  return access;
}

/** A form field as a string ('' when absent or not a string). */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A form field sent zero, one or several times (checkboxes). */
export function fields(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export const orgPath = (org: string, tab = '') => `/org/${encodeURIComponent(org)}${tab ? `/${tab}` : ''}`;

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
  const code = (query as { done?: unknown } | undefined)?.done;
  return typeof code === 'string' ? DONE[code] : undefined;
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

/** Numbered paging links, keeping the rest of the query. */
export function Pager({
  path,
  query,
  page,
  pageSize,
  count,
}: {
  path: string;
  query: Record<string, string>;
  page: number;
  pageSize: number;
  count: number;
}) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (pages <= 1) return null;
  const href = (p: number) => {
    const params = new URLSearchParams({ ...query, page: String(p) });
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    return `${path}?${params.toString()}`;
  };
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={href(page - 1)}>← Newer</a> : <span />}
      <span class="muted small">
        Page {page} of {pages}
      </span>
      {page < pages ? <a href={href(page + 1)}>Older →</a> : <span />}
    </nav>
  );
}

/** A `page` query value: a whole number from 1, else 1. */
export function pageNumber(query: unknown): number {
  const raw = (query as { page?: unknown } | undefined)?.page;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return n >= 1 ? n : 1;
}
