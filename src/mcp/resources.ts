/**
 * The MCP resources: `vulntrack://cve/<id>` (a CVE as get_cve shows it; `catalog:read`) and
 * `vulntrack://project/<org>/<project>/summary` (a project's open, critical and KEV counts;
 * `tracker:read`). Another organization in the URI is not found, as in API v2.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { AppError } from '../domain/errors.ts';
import { authorize, type Requirement } from '../domain/scopes.ts';
import { cveDetailView } from './cve-view.ts';
import { capped, errorText } from './results.ts';
import type { McpCaller, McpServices } from './tool.ts';

const one = (variables: Variables, name: string) => {
  const value = variables[name];
  return decodeURIComponent(String(Array.isArray(value) ? value[0] : (value ?? '')));
};

export function registerResources(
  server: McpServer,
  services: McpServices,
  caller: () => Promise<McpCaller>,
  log: (err: unknown) => void,
): void {
  /** Reads a resource as the token may: its requirement checked, errors in the catalog's words. */
  const read =
    (requires: Requirement, work: (uri: URL, variables: Variables, who: McpCaller) => Promise<unknown>) =>
    async (uri: URL, variables: Variables) => {
      try {
        const who = await caller();
        authorize(who.auth.mode, who.auth.scopes, requires);
        const data = capped((await work(uri, variables, who)) as Record<string, unknown>);
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }],
        };
      } catch (err) {
        throw new Error(errorText(err, log));
      }
    };

  server.registerResource(
    'cve',
    new ResourceTemplate('vulntrack://cve/{cve_id}', { list: undefined }),
    {
      title: 'A CVE, merged',
      description:
        'One CVE as get_cve shows it (best CVSS with source, KEV, EPSS, SSVC, CWE, affected versions).',
      mimeType: 'application/json',
    },
    read({ scope: 'catalog:read', write: false }, async (_uri, variables) => {
      const id = one(variables, 'cve_id').toUpperCase();
      if (!/^CVE-\d{4}-\d{4,}$/.test(id)) throw new AppError('not_found');
      return cveDetailView(await services.catalog.getCve(id));
    }),
  );

  server.registerResource(
    'project-summary',
    new ResourceTemplate('vulntrack://project/{org}/{project}/summary', {
      // The organization's projects, when the token may list them.
      list: async () => {
        try {
          const { auth } = await caller();
          const may = (scope: 'projects:read' | 'tracker:read') => {
            try {
              authorize(auth.mode, auth.scopes, { scope, write: false });
              return true;
            } catch {
              return false;
            }
          };
          if (!may('projects:read') || !may('tracker:read')) return { resources: [] };
          const { items } = await services.projects.list(auth.organizationId, { page: 1, pageSize: 50 });
          const org = encodeURIComponent(auth.organizationName);
          return {
            resources: items
              .filter((p) => p.active)
              .map((p) => ({
                uri: `vulntrack://project/${org}/${encodeURIComponent(p.name)}/summary`,
                name: `${p.name} summary`,
                mimeType: 'application/json',
              })),
          };
        } catch (err) {
          throw new Error(errorText(err, log));
        }
      },
    }),
    {
      title: 'A project’s summary',
      description:
        'A project’s CVE counts: total, open (by severity), open critical, open KEV, by triage status.',
      mimeType: 'application/json',
    },
    read({ scope: 'tracker:read', write: false }, async (_uri, variables, who) => {
      if (one(variables, 'org') !== who.auth.organizationName) throw new AppError('not_found');
      const project = one(variables, 'project');
      const counts = await services.dashboards.projectCounts(who.auth.organizationId, project);
      const open = Object.values(counts.openBySeverity).reduce((a, b) => a + b, 0);
      return {
        organization: who.auth.organizationName,
        project,
        total: counts.total,
        open,
        open_critical: counts.openBySeverity.critical,
        open_high: counts.openBySeverity.high,
        open_kev: counts.kevOpen,
        open_by_severity: counts.openBySeverity,
        by_status: Object.fromEntries(counts.byStatus.map((s) => [s.status, s.count])),
      };
    }),
  );
}
