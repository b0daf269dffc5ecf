/** Inventory matching (`InventoryMatchService`) as API v2 writes it: one answer per component. */
import { Type } from '@fastify/type-provider-typebox';
import { vendorKey } from '../../domain/cpe.ts';
import type { ComponentMatch, CveMatch, MatchRule } from '../../domain/inventory-match.ts';

const Opt = Type.Optional;

const CnaVersion = Type.Object(
  {
    version: Opt(Type.String()),
    less_than: Opt(Type.String()),
    less_than_or_equal: Opt(Type.String()),
    status: Opt(Type.String()),
    version_type: Opt(Type.String()),
  },
  { description: 'The CNA version entry that decided, as written.' },
);

export const Rule = Type.Object(
  {
    source: Type.Union([Type.Literal('nvd'), Type.Literal('cna')], {
      description:
        '`nvd`: one criterion of NVD’s CPE configurations; `cna`: one `affected[]` entry of the CVE record.',
    }),
    configuration: Opt(Type.Integer({ description: 'nvd: index in the CVE’s `nvd_cpe_configurations`.' })),
    criteria: Opt(Type.String({ description: 'nvd: the vulnerable CPE criterion that matched.' })),
    match_criteria_id: Opt(Type.String()),
    version_start_including: Opt(Type.String()),
    version_start_excluding: Opt(Type.String()),
    version_end_including: Opt(Type.String()),
    version_end_excluding: Opt(Type.String()),
    conditions: Opt(
      Type.Union([Type.Literal('met'), Type.Literal('unknown')], {
        description:
          'nvd: `met` when the configuration holds for this component alone; `unknown` when it also needs ' +
          'other products (a platform it runs on), listed in `unknown_conditions`.',
      }),
    ),
    unknown_conditions: Opt(Type.Array(Type.String())),
    entry: Opt(Type.Integer({ description: 'cna: index in the CNA’s `affected[]`.' })),
    vendor: Opt(Type.String()),
    product: Opt(Type.String()),
    package_name: Opt(Type.String()),
    collection_url: Opt(Type.String()),
    matched_by: Opt(
      Type.Union(
        [
          Type.Literal('vendor_product'),
          Type.Literal('cpe'),
          Type.Literal('alias'),
          Type.Literal('package_name'),
        ],
        {
          description:
            'cna: how the entry was tied to the component (`alias`: its vendor and product text as the alias ' +
            'table maps it, the key the catalog lists the CVE under).',
        },
      ),
    ),
    decided_by: Opt(
      Type.Union([Type.Literal('version'), Type.Literal('default_status')], {
        description:
          'cna: a version entry (`version`, with `change` when a `changes[]` step set it), or `defaultStatus`.',
      }),
    ),
    version: Opt(CnaVersion),
    change: Opt(Type.Object({ at: Type.String(), status: Type.String() })),
    comparison: Opt(
      Type.Union(
        [
          Type.Literal('semver'),
          Type.Literal('pep440'),
          Type.Literal('debian'),
          Type.Literal('rpm'),
          Type.Literal('git'),
          Type.Literal('generic'),
        ],
        {
          description:
            'How the version was compared with the range: the CNA `versionType`’s scheme (`semver` for semver ' +
            'and npm, `pep440` for python and pypi, `debian`, `rpm`, `git` as text), or `generic`, the general ' +
            'comparator (docs/inventories.md, "Version schemes"), for NVD’s ranges, other or absent types and ' +
            'versions the scheme cannot read. Absent when no version was compared.',
        },
      ),
    ),
  },
  { description: 'A rule that says the component is affected.' },
);

const CveHit = Type.Object({
  cve_id: Type.String(),
  verdict: Type.Union([Type.Literal('affected'), Type.Literal('version_unknown')], {
    description:
      '`affected`: a rule says this version is affected; `version_unknown`: the component has no version, ' +
      'and a rule names its product with affected versions.',
  }),
  rules: Type.Array(Rule),
});

export const ComponentAnswer = Type.Object({
  index: Type.Integer({ description: 'Position in the request’s `components`, from 0.' }),
  input: Type.Unknown({ description: 'The component as sent.' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the component could not be read (then `cves` is empty); null when it was.',
  }),
  version: Type.Union([Type.String(), Type.Null()], {
    description: 'The version matched; null when the component gives none (it cannot be version-matched).',
  }),
  looked_up: Type.Object(
    {
      vendor_keys: Type.Array(Type.String()),
      package_names: Type.Array(Type.String()),
    },
    {
      description:
        'The catalog keys (`vendor$PRODUCT$product`) and CNA package names the component was looked up by.',
    },
  ),
  cves: Type.Array(CveHit),
});

export const MatchAnswer = Type.Object({
  count: Type.Integer({ description: 'How many components were sent.' }),
  matched: Type.Integer({ description: 'How many of them have at least one CVE.' }),
  components: Type.Array(ComponentAnswer),
});

export function rule(r: MatchRule) {
  if (r.source === 'nvd') {
    return {
      source: r.source,
      configuration: r.configuration,
      criteria: r.criteria,
      match_criteria_id: r.matchCriteriaId,
      version_start_including: r.bounds.startIncluding,
      version_start_excluding: r.bounds.startExcluding,
      version_end_including: r.bounds.endIncluding,
      version_end_excluding: r.bounds.endExcluding,
      conditions: r.conditions,
      unknown_conditions: r.unknownConditions,
      comparison: r.comparison,
    };
  }
  return {
    source: r.source,
    entry: r.entry,
    vendor: r.vendor,
    product: r.product,
    package_name: r.packageName,
    collection_url: r.collectionURL,
    matched_by: r.matchedBy,
    decided_by: r.decidedBy,
    version: r.version && {
      version: r.version.version,
      less_than: r.version.lessThan,
      less_than_or_equal: r.version.lessThanOrEqual,
      status: r.version.status,
      version_type: r.version.versionType,
    },
    change: r.change,
    comparison: r.comparison,
  };
}

const cveHit = (c: CveMatch) => ({ cve_id: c.cveId, verdict: c.verdict, rules: c.rules.map(rule) });

function componentAnswer(m: ComponentMatch) {
  if (!m.ok)
    return {
      index: m.index,
      input: m.input,
      error: m.reason,
      version: null,
      looked_up: { vendor_keys: [], package_names: [] },
      cves: [],
    };
  return {
    index: m.index,
    input: m.input,
    error: null,
    version: m.component.version ?? null,
    looked_up: {
      vendor_keys: m.component.names.map((n) => vendorKey(n.vendor, n.product)),
      package_names: m.component.packageNames,
    },
    cves: m.cves.map(cveHit),
  };
}

export function matchAnswer(matches: readonly ComponentMatch[]) {
  return {
    count: matches.length,
    matched: matches.filter((m) => m.ok && m.cves.length > 0).length,
    components: matches.map(componentAnswer),
  };
}
