/** API v2 shapes of inventories (docs/inventories.md): the list, one inventory's components, a component's findings, an upload's summary. */
import { Type } from '@fastify/type-provider-typebox';
import type { Finding, InventorySummary, StoredComponent, UploadSummary } from '../../domain/inventory.ts';
import { toMicrosZ } from '../../domain/timestamps.ts';
import { rule, Rule } from './match.presenter.ts';
import { Timestamp } from './schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Inventory = Type.Object({
  name: Type.String(),
  format: Type.Union([Type.Literal('cyclonedx'), Type.Literal('spdx-json'), Type.Literal('spdx-tag-value')]),
  spec_version: Type.String({ description: 'The document’s spec version (CycloneDX 1.6, SPDX 2.3, …).' }),
  component_count: Type.Integer(),
  cve_count: Type.Integer({ description: 'CVEs its components have now (resolved ones not counted).' }),
  uploaded_at: Timestamp,
  uploaded_by: Type.String({ description: 'The token’s or user’s name.' }),
});

export const InventoryList = Type.Object({ results: Type.Array(Inventory) });

export const Component = Type.Object({
  position: Type.Integer({ description: 'Position in the document, from 0 (the component’s id here).' }),
  name: Type.String(),
  version: Nullable(Type.String({ description: 'null: the SBOM gives none ("version unknown").' })),
  version_unknown: Type.Boolean(),
  purl: Nullable(Type.String()),
  cpe: Nullable(Type.String()),
  supplier: Nullable(Type.String()),
  ref: Nullable(Type.String({ description: 'The CycloneDX bom-ref or SPDX SPDXID.' })),
  findings: Type.Integer({ description: 'CVEs that affect this version.' }),
});

export const ComponentFindings = Type.Object({
  component: Component,
  findings: Type.Array(Type.Object({ cve_id: Type.String(), found_at: Timestamp, rules: Type.Array(Rule) })),
});

export const UploadAnswer = Type.Object({
  inventory: Inventory,
  components: Type.Integer({ description: 'Components read from the document.' }),
  version_unknown: Type.Integer({ description: 'Components without a version (kept).' }),
  unmatchable: Type.Integer({ description: 'Components with nothing the catalog can be asked by.' }),
  findings: Type.Integer({ description: '(component, CVE) findings.' }),
  cves: Type.Integer({ description: 'CVEs the inventory has.' }),
  entered: Type.Array(Type.String(), { description: 'CVEs this upload brought into the project.' }),
  resolved: Type.Array(
    Type.Object({
      cve_id: Type.String(),
      changes: Type.Array(
        Type.Object({ name: Type.String(), before: Nullable(Type.String()), after: Nullable(Type.String()) }),
      ),
    }),
    {
      description:
        'CVEs resolved by this upload, with each component’s version before and after (null: removed).',
    },
  ),
});

export const inventoryItem = (i: InventorySummary) => ({
  name: i.name,
  format: i.format,
  spec_version: i.specVersion,
  component_count: i.componentCount,
  cve_count: i.cveCount,
  uploaded_at: toMicrosZ(i.uploadedAt),
  uploaded_by: i.uploadedBy,
});

export const componentItem = (c: StoredComponent) => ({
  position: c.position,
  name: c.name,
  version: c.version,
  version_unknown: c.version === null,
  purl: c.purl,
  cpe: c.cpe,
  supplier: c.supplier,
  ref: c.ref,
  findings: c.findings,
});

export const componentFindings = (c: { component: StoredComponent; findings: Finding[] }) => ({
  component: componentItem(c.component),
  findings: c.findings.map((f) => ({
    cve_id: f.cveId,
    found_at: toMicrosZ(f.foundAt),
    rules: f.rules.map(rule),
  })),
});

export const uploadAnswer = (u: UploadSummary) => ({
  inventory: inventoryItem(u.inventory),
  components: u.components,
  version_unknown: u.versionUnknown,
  unmatchable: u.unmatchable,
  findings: u.findings,
  cves: u.cves,
  entered: u.entered,
  resolved: u.resolved.map((r) => ({ cve_id: r.cveId, changes: r.changes })),
});
