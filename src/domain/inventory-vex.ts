/**
 * VEX out (docs/inventories.md, "VEX"): a project's triage of an inventory's findings as a CycloneDX
 * 1.5 VEX BOM or an OpenVEX 0.2.0 document. The tracker's status maps to a VEX state by one table
 * (`VEX_STATES`); the latest tracker comment is the analysis detail, and its justification when it
 * names one of the format's justifications. Pure.
 */
import { createHash } from 'node:crypto';
import type { InventorySummary, VexRow } from './inventory.ts';

export const VEX_FORMATS = ['cyclonedx', 'openvex'] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

type CycloneDxState = 'resolved' | 'exploitable' | 'in_triage' | 'not_affected';
type OpenVexStatus = 'fixed' | 'affected' | 'under_investigation' | 'not_affected';

/** Tracker status (null: none) → the CycloneDX analysis state and the OpenVEX status. */
export const VEX_STATES: Record<string, { cyclonedx: CycloneDxState; openvex: OpenVexStatus }> = {
  none: { cyclonedx: 'in_triage', openvex: 'under_investigation' },
  to_evaluate: { cyclonedx: 'in_triage', openvex: 'under_investigation' },
  pending_review: { cyclonedx: 'in_triage', openvex: 'under_investigation' },
  analysis_in_progress: { cyclonedx: 'in_triage', openvex: 'under_investigation' },
  remediation_in_progress: { cyclonedx: 'exploitable', openvex: 'affected' },
  evaluated: { cyclonedx: 'exploitable', openvex: 'affected' },
  risk_accepted: { cyclonedx: 'exploitable', openvex: 'affected' },
  resolved: { cyclonedx: 'resolved', openvex: 'fixed' },
  not_applicable: { cyclonedx: 'not_affected', openvex: 'not_affected' },
};

export const CYCLONEDX_JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;

export const OPENVEX_JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
] as const;

/** The VEX states of a row: its tracker status; with none, resolved when an upload resolved it. */
export function vexState(row: Pick<VexRow, 'status' | 'resolved_at'>): (typeof VEX_STATES)[string] {
  if (row.status && VEX_STATES[row.status]) return VEX_STATES[row.status]!;
  return row.resolved_at ? VEX_STATES.resolved! : VEX_STATES.none!;
}

/** The first of `names` the comment writes (as a word, `_` or `-` between its parts, any case). */
function justificationIn<T extends string>(comment: string | null, names: readonly T[]): T | undefined {
  if (!comment) return undefined;
  const text = comment.toLowerCase().replace(/-/g, '_');
  return names.find((n) => new RegExp(`(^|[^a-z_])${n}($|[^a-z_])`).test(text));
}

function detailOf(row: VexRow, inventory: string): string | undefined {
  if (row.comment) return row.comment;
  if (row.resolution?.changes.length)
    return `Resolved by inventory ${inventory}: ${row.resolution.changes
      .map((c) => `${c.name} ${c.before ?? 'version unknown'} → ${c.after ?? 'removed'}`)
      .join(', ')}.`;
  return undefined;
}

export interface VexSubject {
  organization: string;
  project: string;
  inventory: InventorySummary;
  /** The inventory's id: the documents' ids derive from it. */
  id: string;
}

/** The VEX document of the inventory's rows. */
export function vexDocument(
  format: VexFormat,
  subject: VexSubject,
  rows: readonly VexRow[],
  now: Date,
): Record<string, unknown> {
  return format === 'cyclonedx' ? cycloneDx(subject, rows, now) : openVex(subject, rows, now);
}

function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const componentRef = (c: VexRow['components'][number]) => c.ref ?? c.purl ?? `${c.name}@${c.version ?? ''}`;

function cycloneDx(subject: VexSubject, rows: readonly VexRow[], now: Date): Record<string, unknown> {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: `urn:uuid:${uuidOf(`${subject.id} ${now.toISOString()}`)}`,
    version: 1,
    metadata: {
      timestamp: now.toISOString(),
      tools: { components: [{ type: 'application', name: 'vulntrack' }] },
      component: {
        type: 'application',
        name: `${subject.project}/${subject.inventory.name}`,
        'bom-ref': subject.id,
      },
    },
    vulnerabilities: rows.map((row) => {
      const state = vexState(row).cyclonedx;
      const justification =
        state === 'not_affected' ? justificationIn(row.comment, CYCLONEDX_JUSTIFICATIONS) : undefined;
      const detail = detailOf(row, subject.inventory.name);
      return {
        id: row.cve_id,
        source: { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${row.cve_id}` },
        analysis: {
          state,
          ...(justification ? { justification } : {}),
          ...(row.status === 'risk_accepted' ? { response: ['will_not_fix'] } : {}),
          ...(detail ? { detail } : {}),
        },
        affects: row.components.map((c) => ({ ref: componentRef(c) })),
      };
    }),
  };
}

function openVex(subject: VexSubject, rows: readonly VexRow[], now: Date): Record<string, unknown> {
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `urn:uuid:${uuidOf(`${subject.id} ${now.toISOString()}`)}`,
    author: `vulntrack (project ${subject.project})`,
    timestamp: now.toISOString(),
    version: 1,
    statements: rows.map((row) => {
      const status = vexState(row).openvex;
      const detail = detailOf(row, subject.inventory.name);
      const justification =
        status === 'not_affected' ? justificationIn(row.comment, OPENVEX_JUSTIFICATIONS) : undefined;
      return {
        vulnerability: { name: row.cve_id },
        products: row.components.map((c) => ({ '@id': c.purl ?? componentRef(c) })),
        status,
        ...(justification ? { justification } : {}),
        ...(status === 'not_affected'
          ? { impact_statement: detail ?? 'Triaged as not applicable.' }
          : detail
            ? { status_notes: detail }
            : {}),
        ...(status === 'affected'
          ? {
              action_statement:
                row.status === 'risk_accepted'
                  ? 'Risk accepted: will not fix.'
                  : row.status === 'remediation_in_progress'
                    ? 'Remediation in progress.'
                    : 'Evaluated as affected; no remediation recorded.',
            }
          : {}),
      };
    }),
  };
}
