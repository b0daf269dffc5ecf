/**
 * A finding's rules in a sentence each: which source says the component's version is affected, and
 * by which range (docs/inventories.md, "Findings").
 */
import type { MatchRule } from '../../../domain/inventory-match.ts';
import type { VersionBounds } from '../../../domain/version-range.ts';

type CnaRule = Extract<MatchRule, { source: 'cna' }>;

/**
 * "from 2.0-beta9 up to before 2.15.0", "up to 1.0.1f", "exactly 5.6.0". A range with `changes[]`
 * steps is told from the step that decided (`change`) up to the next step, else the range's end:
 * Log4Shell's "2.0-beta9 to log4j-core*" range with steps reads "from 2.13.0 up to before 2.15.0".
 */
function cnaRange(v: NonNullable<CnaRule['version']>, change: CnaRule['change']): string {
  if (change) {
    const steps = v.changes ?? [];
    const next = steps
      .slice(steps.findIndex((c) => c.at === change.at) + 1)
      .find((c) => c.status !== change.status);
    return next ? `from ${change.at} up to before ${next.at}` : `from ${change.at}`;
  }
  const from = v.version && v.version !== '0' && v.version !== '*' ? `from ${v.version} ` : '';
  if (v.lessThan && v.lessThan !== '*') return `${from}up to before ${v.lessThan}`;
  if (v.lessThanOrEqual && v.lessThanOrEqual !== '*') return `${from}up to ${v.lessThanOrEqual}`;
  if (v.lessThan === '*' || v.lessThanOrEqual === '*') return `${from}and later`.trim();
  return v.version ? `exactly ${v.version}` : 'every version';
}

function nvdRange(b: VersionBounds): string {
  const parts: string[] = [];
  if (b.startIncluding) parts.push(`from ${b.startIncluding}`);
  if (b.startExcluding) parts.push(`after ${b.startExcluding}`);
  if (b.endExcluding) parts.push(`up to before ${b.endExcluding}`);
  if (b.endIncluding) parts.push(`up to ${b.endIncluding}`);
  return parts.join(' ');
}

/** One rule as a short sentence, e.g. "The CNA (Apache Log4j2): affected from 2.0-beta9 up to before 2.15.0 (maven)". */
export function ruleText(rule: MatchRule): string {
  if (rule.source === 'cna') {
    const named = rule.packageName ?? [rule.vendor, rule.product].filter(Boolean).join(' · ');
    const who = named ? `The CNA (${named})` : 'The CNA';
    if (rule.decidedBy === 'default_status' || !rule.version)
      return `${who}: affected unless a range says otherwise`;
    const scheme = rule.version.versionType ? ` (${rule.version.versionType})` : '';
    return `${who}: affected ${cnaRange(rule.version, rule.change)}${scheme}`;
  }
  const range = nvdRange(rule.bounds);
  const cpe = rule.criteria
    .split(':')
    .slice(3, 6)
    .filter((p) => p !== '*')
    .join(' ');
  const condition = rule.conditions === 'unknown' ? ', when its other conditions hold' : '';
  return `NVD (${cpe}): affected${range ? ` ${range}` : ''}${condition}`;
}
