/** `vulntrack inventory …`: upload an SBOM as a project's inventory, list a project's inventories, delete one. */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_SBOM_BYTES } from '../domain/inventory.ts';
import { actorFor } from './arguments.ts';
import { serviceCommand } from './command.ts';
import { EXIT, UsageError } from './output.ts';

export const inventoryUpload = serviceCommand({
  name: 'inventory upload',
  description:
    "upload an SBOM (CycloneDX JSON, SPDX JSON or tag-value) as a project's inventory, replacing the one of that name",
  arguments: [
    { name: '<org>', description: 'the organization' },
    { name: '<project>', description: 'the project' },
    { name: '<name>', description: 'the inventory name (e.g. backend, firmware)' },
    { name: '<file>', description: 'the SBOM file' },
  ],
  options: [
    { flags: '--uploaded-by <username>', description: 'the member the upload is recorded as made by' },
  ],
  args: (org: string, project: string, name: string, file: string, o: { uploadedBy?: string }) => {
    const absolute = path.resolve(file);
    const stat = fs.statSync(absolute, { throwIfNoEntry: false });
    if (!stat?.isFile()) throw new UsageError(`${file}: no such file`);
    if (stat.size > MAX_SBOM_BYTES)
      throw new UsageError(`${file}: larger than 50 MB, the most an inventory takes`);
    return { org, project, name, file: absolute, uploadedBy: o.uploadedBy };
  },
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.uploadedBy);
    const text = await fs.promises.readFile(args.file, 'utf8');
    const contentType = /\.spdx$/i.test(args.file) ? 'text/spdx' : undefined;
    const u = await services.inventories.upload(org.id, args.project, args.name, text, contentType, actor);
    const summary =
      `${u.components} components read (${u.versionUnknown} without a version, ${u.unmatchable} not matchable), ` +
      `${u.findings} findings, ${u.cves} CVEs; ${u.entered.length} entered the project, ${u.resolved.length} resolved`;
    const resolved = u.resolved.map(
      (r) =>
        `  ${r.cveId} resolved: ${r.changes.map((c) => `${c.name} ${c.before ?? '?'} → ${c.after ?? 'removed'}`).join(', ')}`,
    );
    return {
      text: [`${args.project}/${args.name}: ${summary}`, ...resolved].join('\n'),
      data: {
        organization: org.name,
        project: args.project,
        inventory: args.name,
        format: u.inventory.format,
        components: u.components,
        version_unknown: u.versionUnknown,
        unmatchable: u.unmatchable,
        findings: u.findings,
        cves: u.cves,
        entered: u.entered,
        resolved: u.resolved.map((r) => ({ cve_id: r.cveId, changes: r.changes })),
      },
      exitCode: EXIT.ok,
    };
  },
});

export const inventoryList = serviceCommand({
  name: 'inventory list',
  description: "list a project's inventories: format, components, CVEs, when and by whom uploaded",
  arguments: [{ name: '<org>', description: 'the organization' }, { name: '<project>' }],
  args: (org: string, project: string) => ({ org, project }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const list = await services.inventories.list(org.id, args.project);
    const rows = list.map((i) => ({
      name: i.name,
      format: i.format,
      spec_version: i.specVersion,
      components: i.componentCount,
      cves: i.cveCount,
      uploaded_at: i.uploadedAt.toISOString(),
      uploaded_by: i.uploadedBy,
    }));
    const text = rows.length
      ? rows
          .map(
            (r) =>
              `${r.name}\t${r.format} ${r.spec_version}\t${r.components} components\t${r.cves} CVEs\t${r.uploaded_at} by ${r.uploaded_by}`,
          )
          .join('\n')
      : `${args.project} has no inventory`;
    return { text, data: rows, exitCode: EXIT.ok };
  },
});

export const inventoryDelete = serviceCommand({
  name: 'inventory delete',
  description: "delete a project's inventory (its components and findings; tracker entries stay)",
  arguments: [{ name: '<org>' }, { name: '<project>' }, { name: '<name>' }],
  options: [
    { flags: '--deleted-by <username>', description: 'the member the deletion is recorded as made by' },
  ],
  args: (org: string, project: string, name: string, o: { deletedBy?: string }) => ({
    org,
    project,
    name,
    deletedBy: o.deletedBy,
  }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const actor = await actorFor(services, org, args.deletedBy);
    await services.inventories.delete(org.id, args.project, args.name, actor);
    return {
      text: `deleted inventory ${args.project}/${args.name}`,
      data: { organization: org.name, project: args.project, inventory: args.name },
      exitCode: EXIT.ok,
    };
  },
});
