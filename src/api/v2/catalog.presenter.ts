/** Response shapes of the catalog (docs/api-v2.md): CVE dates in whole seconds, our own in microseconds. */
import { Type } from '@fastify/type-provider-typebox';
import type { AffectedSource } from '../../domain/affected.ts';
import type { CatalogCve } from '../../domain/cve-facts.ts';
import { toMicrosZ, toSecondsZ } from '../../domain/timestamps.ts';
import { Timestamp, Uuid } from './schemas.ts';

export const CveListItem = Type.Object({
  created_at: Timestamp,
  updated_at: Timestamp,
  cve_id: Type.String(),
  description: Type.String(),
});

const MetricSchema = Type.Object({
  data: Type.Union([Type.Object({}, { additionalProperties: true }), Type.String(), Type.Null()]),
  provider: Type.Union([Type.String(), Type.Null()]),
});

const OptionalText = (description: string) => Type.Optional(Type.String({ description }));

const AffectedVersion = Type.Object({
  version: Type.String({ description: 'The version, or the start of the range (`0`: from the first).' }),
  status: Type.String({ description: '`affected`, `unaffected` or `unknown`.' }),
  lessThan: OptionalText('The range ends before this version (`*`: no end).'),
  lessThanOrEqual: OptionalText('The range ends with this version (`*`: no end).'),
  versionType: OptionalText('How versions compare (`semver`, `git`, `custom`…).'),
  changes: Type.Optional(
    Type.Array(Type.Object({ at: Type.String(), status: Type.String() }), {
      description: 'Status changes inside the range, in order.',
    }),
  ),
});

const AffectedEntry = Type.Object({
  vendor: Type.Optional(Type.String()),
  product: Type.Optional(Type.String()),
  packageName: Type.Optional(Type.String()),
  collectionURL: Type.Optional(Type.String()),
  packageURL: OptionalText('CVE 5.2: the package as a Package URL.'),
  platforms: Type.Optional(Type.Array(Type.String())),
  defaultStatus: OptionalText('The status of versions no range names.'),
  versions: Type.Array(AffectedVersion),
  cpes: Type.Optional(Type.Array(Type.String())),
});

export const AffectedSourceSchema = Type.Object({
  source: Type.Union([Type.Literal('cna'), Type.Literal('adp')]),
  provider: Type.Union([Type.String(), Type.Null()], {
    description: "The container's provider by its short name (`apache`, `CISA-ADP`).",
  }),
  entries: Type.Array(AffectedEntry),
  cpeApplicability: Type.Optional(
    Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: "CVE 5.1: the container's configurations, in NVD's layout.",
    }),
  ),
});

export const CveDetail = Type.Object({
  created_at: Timestamp,
  updated_at: Timestamp,
  cve_id: Type.String(),
  description: Type.String(),
  title: Type.String(),
  state: Type.String({ description: 'PUBLISHED or REJECTED (rejected CVEs stay in the catalog, flagged).' }),
  metrics: Type.Object({
    kev: MetricSchema,
    ssvc: MetricSchema,
    cvssV2_0: MetricSchema,
    cvssV3_0: MetricSchema,
    cvssV3_1: MetricSchema,
    cvssV4_0: MetricSchema,
    threat_severity: MetricSchema,
    epss: MetricSchema,
  }),
  weaknesses: Type.Array(Type.String()),
  vendors: Type.Array(Type.String()),
  nvd_cpe_configurations: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  references: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  affected: Type.Array(AffectedSourceSchema, {
    description:
      'What the CVE record states is affected, per container: the CNA first, then each ADP (docs/api-v2.md).',
  }),
});

export const CveChangeItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  cve_id: Type.String(),
  types: Type.Array(Type.String()),
});

const ChangeEntries = Type.Array(Type.Object({ type: Type.String(), details: Type.Unknown() }));

export const CveChangeDetail = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  cve_id: Type.String(),
  types: Type.Array(Type.String()),
  data: ChangeEntries,
  change_data: Type.Object(
    { id: Uuid, created: Type.String(), data: ChangeEntries },
    {
      description:
        "The change as OpenCVE's knowledge base writes it (OpenCVE's `change_data`): its id, `created` in " +
        "the KB's form (`2024-03-29T17:15:21.150000+00:00`) and the same entries as `data`.",
    },
  ),
});

export const NamedItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
});

export const WeaknessItem = Type.Object({
  cwe_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CVE_INCLUDES = ['nvd_cpe_configurations', 'references'] as const;
export type CveInclude = (typeof CVE_INCLUDES)[number];

export function cveListItem(row: {
  cve_id: string;
  description: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}) {
  return {
    created_at: toSecondsZ(row.created_at),
    updated_at: toSecondsZ(row.updated_at),
    cve_id: row.cve_id,
    description: row.description ?? '',
  };
}

export function cveDetail(
  row: CatalogCve & { affected: readonly AffectedSource[] },
  include: ReadonlySet<CveInclude>,
) {
  const detail: Record<string, unknown> = {
    ...cveListItem(row),
    title: row.title ?? '',
    state: row.state,
    metrics: row.metrics,
    weaknesses: row.weaknesses,
    vendors: row.vendors,
    affected: row.affected,
  };
  if (include.has('nvd_cpe_configurations')) detail.nvd_cpe_configurations = row.nvd_configurations ?? [];
  if (include.has('references')) detail.references = row.references;
  return detail;
}

export function changeItem(row: { id: string; created_at: Date; cve_id: string; types: string[] }) {
  return { id: row.id, created_at: toMicrosZ(row.created_at), cve_id: row.cve_id, types: row.types };
}

/**
 * One change with its entries, twice: `data` (ours, first) and `change_data`, the change as OpenCVE's
 * KB file holds it, which OpenCVE 3.1's change detail answers (scripts read `change_data.id`).
 */
export function changeDetail(row: {
  id: string;
  created_at: Date;
  cve_id: string;
  types: string[];
  data: unknown;
}) {
  const data = row.data as { type: string; details: unknown }[];
  return {
    ...changeItem(row),
    data,
    change_data: { id: row.id, created: toKbTimestamp(row.created_at), data },
  };
}

/** `2024-03-29T17:15:21.150000+00:00`, or without the fraction at a whole second, as Python writes it. */
function toKbTimestamp(date: Date): string {
  const iso = date.toISOString();
  const fraction = iso.slice(20, 23) === '000' ? '' : `.${iso.slice(20, 23)}000`;
  return `${iso.slice(0, 19)}${fraction}+00:00`;
}

export function namedItem(row: { id: string; name: string; created_at: Date; updated_at: Date }) {
  return {
    id: row.id,
    created_at: toMicrosZ(row.created_at),
    updated_at: toMicrosZ(row.updated_at),
    name: row.name,
  };
}

export function weaknessItem(row: {
  cwe_id: string;
  name: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}) {
  return {
    cwe_id: row.cwe_id,
    name: row.name,
    description: row.description,
    created_at: toMicrosZ(row.created_at),
    updated_at: toMicrosZ(row.updated_at),
  };
}
