import type { WalkRoute } from './walk.ts';

const cve = '/org/:org/projects/:project/cves/:cve';

/**
 * One CVE in a project. Every member triages, tags and comments; a comment is edited by its author
 * only and deleted by its author or an owner. The walk's comment (`:comment`) is the owner's, so a
 * member who is not its author gets 403 on both, as on an owner route.
 */
export const projectCveRoutes: WalkRoute[] = [
  { method: 'GET', url: cve, allowed: 'member' },
  { method: 'POST', url: `${cve}/triage`, allowed: 'member', form: { status: 'resolved', assignee: '' } },
  { method: 'POST', url: `${cve}/tags`, allowed: 'member', form: { tags: 'walked' } },
  { method: 'POST', url: `${cve}/comments`, allowed: 'member', form: { body: 'Walked **here**.' } },
  { method: 'POST', url: `${cve}/comments/:comment`, allowed: 'owner', form: { body: 'Edited.' } },
  { method: 'POST', url: `${cve}/comments/:comment/delete`, allowed: 'owner', last: true },
];
