/**
 * Response shapes of API v1's paged shape (docs/api-v1.md): exactly the seed's fields. CVE dates in
 * whole seconds, the service's own resources in microseconds (as API v2).
 */
import type { CatalogCve } from '../../../domain/cve-facts.ts';
import type { ProjectRow } from '../../../domain/project.ts';
import { METRIC_KEYS, type NvdConfiguration } from '../../../domain/cve.ts';
import type { SubscriptionSet } from '../../../domain/subscriptions.ts';
import { toMicrosZ, toSecondsZ } from '../../../domain/timestamps.ts';

interface Dated {
  created_at: Date;
  updated_at: Date;
}

const dates = (row: Dated) => ({
  created_at: toMicrosZ(row.created_at),
  updated_at: toMicrosZ(row.updated_at),
});

/** An organization, a vendor or a product: `{id, created_at, updated_at, name}`. */
export const namedItem = (row: Dated & { id: string; name: string }) => ({
  id: row.id,
  ...dates(row),
  name: row.name,
});

export const projectItem = (row: ProjectRow) => ({
  id: row.id,
  ...dates(row),
  name: row.name,
  description: row.description,
});

export const projectDetail = (d: { project: ProjectRow; subscriptions: SubscriptionSet }) => ({
  ...projectItem(d.project),
  subscriptions: d.subscriptions,
});

export const weaknessItem = (row: Dated & { cwe_id: string }) => ({ ...dates(row), cwe_id: row.cwe_id });

export const cveItem = (row: {
  cve_id: string;
  description: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}) => ({
  created_at: toSecondsZ(row.created_at),
  updated_at: toSecondsZ(row.updated_at),
  cve_id: row.cve_id,
  description: row.description ?? '',
});

/** The seed's seven metrics, each `{data, provider}` (absent: `{}`, or null for threat_severity). */
function metricsOf(stored: Record<string, unknown>) {
  return Object.fromEntries(
    METRIC_KEYS.map((key) => [
      key,
      stored[key] ?? { data: key === 'threat_severity' ? null : {}, provider: null },
    ]),
  );
}

export function cveDetail(row: CatalogCve, withConfigurations: boolean) {
  const detail: Record<string, unknown> = {
    ...cveItem(row),
    title: row.title ?? '',
    metrics: metricsOf(row.metrics),
    weaknesses: row.weaknesses,
    vendors: row.vendors,
  };
  if (withConfigurations) {
    // Seed §2.7: every configuration names its operator; NVD leaves it out for one node, where AND
    // and OR mean the same.
    detail.nvd_cpe_configurations = ((row.nvd_configurations ?? []) as NvdConfiguration[]).map((c) => ({
      operator: c.operator ?? 'OR',
      ...(c.negate ? { negate: true } : {}),
      nodes: c.nodes,
    }));
  }
  return detail;
}
