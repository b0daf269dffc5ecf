/**
 * Who may open a page: the signed-in user's membership of the organization of the URL (404 when
 * they have not joined it: another organization's pages do not exist for them), the owner rule (403
 * for members, with a sentence saying whom to ask), and the project of the URL.
 *
 * Roles: every member of the organization reads every project page and triages (status, assignee,
 * tags, comments, bulk edits); changing what a project is (its settings, subscriptions,
 * notifications, automations, report schedule) is for owners, as on OpenCVE: a member gets 403.
 */
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../domain/actor.ts';
import { AppError } from '../../domain/errors.ts';
import type { ProjectRow } from '../../domain/project.ts';
import type { OrganizationMembership } from '../../services/web-session.service.ts';
import type { WebServices } from './context.ts';

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

/**
 * The signed-in server administrator, as the actor of what they do; not found (404) for anyone else:
 * the administration pages do not exist for them.
 */
export function serverAdminAccess(request: FastifyRequest): Actor {
  const user = request.page.user;
  if (!user?.isAdmin) throw new AppError('not_found');
  return { type: 'user', id: user.id, name: user.username };
}
