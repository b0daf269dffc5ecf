/**
 * The organization's projects: list them (`projects:read`), a project's CVEs with their triage and
 * why a CVE is in it (`tracker:read`), and the one write, a triage (`tracker:write`, a read-write token).
 */
import { z } from 'zod';
import { COMMENT_MAX_LENGTH, NO_STATUS, TRIAGE_STATUSES } from '../domain/triage.ts';
import { validationError } from '../domain/errors.ts';
import type { ProjectMatch } from '../domain/project-match.ts';
import { splitVendorKey } from '../domain/cpe.ts';
import type { TriageState } from '../services/project-cves.service.ts';
import { cveListEntry } from './cve-view.ts';
import { CveId, cursorOf, ListFilters, nextCursor } from './catalog.tools.ts';
import { PAGE_MAX } from './results.ts';
import { tool } from './tool.ts';

const trackerRead = { scope: 'tracker:read', write: false } as const;

const Project = z.string().min(1).max(100).describe('The project’s name (list_projects gives them).');

const keyText = (key: string) => {
  const { vendor, product } = splitVendorKey(key);
  return product === undefined ? vendor : `${vendor} / ${product}`;
};
const day = (date: Date | null) => date?.toISOString().slice(0, 10) ?? null;

const listProjects = tool({
  name: 'list_projects',
  title: 'Projects',
  description:
    'The organization’s projects: each watches vendors, products or keywords, and holds the catalog CVEs that ' +
    'match them with their triage. Gives each project’s CVE count and open (untriaged or in progress) count.',
  requires: { scope: 'projects:read', write: false },
  input: { page: z.number().int().min(1).optional().describe(`Page of ${PAGE_MAX} projects (default 1).`) },
  async run(args, services, caller) {
    const { count, items } = await services.projects.listWithCounts(caller.auth.organizationId, {
      page: args.page ?? 1,
      pageSize: PAGE_MAX,
    });
    const projects = items.map((p) => ({
      name: p.name,
      description: p.description || undefined,
      active: p.active,
      subscriptions: p.subscriptions_count,
      cves: p.capped ? `${p.cves}+` : p.cves,
      open: p.open,
    }));
    return {
      summary: `${count} projects in ${caller.auth.organizationName}: ${projects.map((p) => p.name).join(', ') || 'none'}.`,
      data: { organization: caller.auth.organizationName, count, projects },
    };
  },
});

const trackerView = (t: TriageState | undefined) =>
  t?.status || t?.assignee
    ? { status: t.status, assignee: t.assignee, updated: t.updated_at?.toISOString() ?? null }
    : { status: null };

const projectCves = tool({
  name: 'project_cves',
  title: 'A project’s CVEs',
  description:
    'The CVEs of one project (those matching what it watches, REJECTED excepted) with their triage status and ' +
    'assignee: "what is open and exploited in web-apps?" is status no_status or any open one plus kev: true. ' +
    'Filters: status, assignee, kev, cvss level, epss_gte, text, q; sort with ordering (-cvss, -epss, …).',
  requires: trackerRead,
  input: {
    project: Project,
    status: z
      .enum([...TRIAGE_STATUSES, NO_STATUS])
      .optional()
      .describe(`A triage status, or ${NO_STATUS} for CVEs nobody triaged yet.`),
    assignee: z
      .string()
      .min(1)
      .max(320)
      .optional()
      .describe('The assignee’s email, or "none" for CVEs nobody is assigned to.'),
    ...ListFilters,
  },
  async run(args, services, caller) {
    const ordering = args.ordering ?? '-updated_at';
    const { cursor: _c, page_size: _s, ordering: _o, project: _p, ...filtersAsked } = args;
    const { page, tracker } = await services.projectCves.browseCves(
      caller.auth.organizationId,
      args.project,
      {
        filters: { search: args.text || undefined, kev: args.kev, cvss: args.cvss, epssGte: args.epss_gte },
        q: args.q,
        ordering,
        status: args.status,
        assignee: args.assignee === undefined ? undefined : args.assignee === 'none' ? null : args.assignee,
        countKey: JSON.stringify(['mcp:project', caller.auth.organizationId, filtersAsked]),
      },
      cursorOf(args.cursor, ordering),
      args.page_size ?? 20,
    );
    const cves = page.items.map((row) => ({
      ...cveListEntry(row),
      triage: trackerView(tracker.get(row.cve_id)),
    }));
    const total = `${page.count}${page.capped ? '+' : ''}`;
    return {
      summary: cves.length
        ? `${total} CVEs of ${args.project} match; ${cves.length} from #${page.position + 1}: ${cves.map((c) => c.cve_id).join(', ')}.`
        : `No CVE of ${args.project} matches (${total}).`,
      data: {
        project: args.project,
        count: page.count,
        count_capped: page.capped,
        cves,
        next_cursor: nextCursor(page),
      },
    };
  },
});

/** Why a CVE is (not) in a project, for a model: the keys that matched and where they come from. */
function matchView(m: ProjectMatch) {
  const sourceText = (s: ProjectMatch['keys'][number]['sources'][number]) =>
    s.via === 'cpe'
      ? `${s.provider} CPE ${s.example}${s.count > 1 ? ` (+${s.count - 1})` : ''}`
      : s.via === 'cna_text'
        ? `${s.provider} text "${s.text ?? [s.vendor, s.product].filter(Boolean).join(' / ')}"${s.rule ? ` (${s.rule})` : ''}`
        : `${s.provider} states it`;
  return {
    cve_id: m.cveId,
    project: m.project,
    in_project: m.inProject,
    outcome: m.outcome,
    entered: m.entered && {
      at: m.entered.at.toISOString(),
      by: m.entered.key ? keyText(m.entered.key) : m.entered.keyword,
      cause: m.entered.cause,
    },
    matched: m.matched.map((k) => ({
      subscribed: keyText(k.key),
      subscribed_at: day(k.subscribedAt),
      cve_has_it_since: day(k.cveHasSince),
      from: k.sources.map(sourceText),
    })),
    matched_keywords: m.matchedKeywords.map((k) => ({ keyword: k.keyword, in: k.fields })),
    ...(m.inProject
      ? {}
      : {
          cve_keys: m.keys.map((k) => ({ key: keyText(k.key), from: k.sources.map(sourceText) })),
          near: m.near.map((n) => ({
            subscribed: keyText(n.subscribed),
            cve_key: keyText(n.cveKey),
            relation: n.relation,
          })),
        }),
  };
}

const OUTCOME_TEXT: Record<ProjectMatch['outcome'], string> = {
  matched: 'is in',
  rejected: 'is REJECTED, so never in',
  no_keys: 'has no known vendor yet, so is not in',
  no_subscriptions: 'is not in (the project watches nothing)',
  no_subscribed_key: 'is not in (none of its vendors or products is watched by)',
};

const whyInProject = tool({
  name: 'why_in_project',
  title: 'Why a CVE is (not) in a project',
  description:
    'Explains why a CVE is, or is not, in a project: which watched vendor/product (or keyword) matched, which ' +
    'source gave the CVE that vendor (NVD CPE, the CNA’s own text), and when it entered; for a CVE outside the ' +
    'project, its vendors and the nearest watched ones. Any catalog CVE may be asked about.',
  requires: trackerRead,
  input: { project: Project, cve_id: CveId },
  async run(args, services, caller) {
    const match = await services.projectMatch.explain(
      caller.auth.organizationId,
      args.project,
      args.cve_id.toUpperCase(),
    );
    const view = matchView(match);
    const first = view.matched[0];
    return {
      summary:
        `${match.cveId} ${OUTCOME_TEXT[match.outcome]} ${match.project}` +
        (first ? `: it carries ${first.subscribed}, from ${first.from.join('; ') || 'the catalog'}.` : '.'),
      data: view,
    };
  },
});

const triageCve = tool({
  name: 'triage_cve',
  title: 'Triage a CVE of a project',
  description:
    'Sets the triage status and/or assignee of one CVE of a project, and/or adds a comment. The only tool that ' +
    'writes: recorded in the organization’s audit log as this token via mcp. Status null clears it; assignee is a ' +
    'member’s email (null clears it). Ask the user before triaging.',
  requires: { scope: 'tracker:write', write: true },
  input: {
    project: Project,
    cve_id: CveId,
    status: z.enum(TRIAGE_STATUSES).nullable().optional().describe('The new status; null clears it.'),
    assignee: z.string().min(1).max(320).nullable().optional().describe('A member’s email; null clears it.'),
    comment: z.string().min(1).max(COMMENT_MAX_LENGTH).optional().describe('A comment to add (Markdown).'),
  },
  async run(args, services, caller) {
    const { organizationId } = caller.auth;
    const cveId = args.cve_id.toUpperCase();
    const moves = args.status !== undefined || args.assignee !== undefined;
    if (!moves && args.comment === undefined)
      throw validationError({ status: ['give a status, an assignee or a comment'] });
    const done: string[] = [];
    let triage: ReturnType<typeof trackerView> | undefined;
    if (moves) {
      const moved = await services.tracker.update(
        organizationId,
        args.project,
        cveId,
        { status: args.status, assignee: args.assignee },
        caller.actor,
      );
      triage = trackerView(moved.tracker);
      done.push(`status ${moved.tracker.status ?? 'none'}, assignee ${moved.tracker.assignee ?? 'none'}`);
    }
    if (args.comment !== undefined) {
      await services.trackerComments.addComment(
        organizationId,
        args.project,
        cveId,
        args.comment,
        caller.actor,
      );
      done.push('comment added');
    }
    return {
      summary: `${cveId} in ${args.project}: ${done.join('; ')} (audited as token ${caller.auth.actor.name} via mcp).`,
      data: {
        project: args.project,
        cve_id: cveId,
        ...(triage ? { triage } : {}),
        comment_added: args.comment !== undefined,
      },
    };
  },
});

export const PROJECT_TOOLS = [listProjects, projectCves, whyInProject, triageCve];
