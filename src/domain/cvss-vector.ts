/**
 * CVSS vectors read into named metrics (FIRST's specifications of CVSS v2.0, v3.0/v3.1 and v4.0):
 * `AV:N` is "Attack Vector: Network". Pure; what a page shows beside a score.
 */

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

/** One metric of a vector: its abbreviation and value as written, and their names. */
export interface CvssMetricValue {
  key: string;
  name: string;
  value: string;
  /** The value's name; the value itself when the specification has no such value. */
  valueName: string;
  /** Base, temporal/threat, environmental or supplemental. */
  group: 'base' | 'temporal' | 'threat' | 'environmental' | 'supplemental';
  /** False for a metric or value the specification does not define (shown as written). */
  known: boolean;
}

export interface ParsedCvssVector {
  version: CvssVersion;
  metrics: CvssMetricValue[];
}

type Values = Record<string, string>;
interface MetricDef {
  name: string;
  values: Values;
  group: CvssMetricValue['group'];
}

const NOT_DEFINED = { X: 'Not Defined' };
const CIA3: Values = { H: 'High', L: 'Low', N: 'None' };
const REQ3: Values = { ...NOT_DEFINED, H: 'High', M: 'Medium', L: 'Low' };

const V3: Record<string, MetricDef> = {
  AV: {
    name: 'Attack Vector',
    group: 'base',
    values: { N: 'Network', A: 'Adjacent', L: 'Local', P: 'Physical' },
  },
  AC: { name: 'Attack Complexity', group: 'base', values: { L: 'Low', H: 'High' } },
  PR: { name: 'Privileges Required', group: 'base', values: { N: 'None', L: 'Low', H: 'High' } },
  UI: { name: 'User Interaction', group: 'base', values: { N: 'None', R: 'Required' } },
  S: { name: 'Scope', group: 'base', values: { U: 'Unchanged', C: 'Changed' } },
  C: { name: 'Confidentiality', group: 'base', values: CIA3 },
  I: { name: 'Integrity', group: 'base', values: CIA3 },
  A: { name: 'Availability', group: 'base', values: CIA3 },
  E: {
    name: 'Exploit Code Maturity',
    group: 'temporal',
    values: { ...NOT_DEFINED, U: 'Unproven', P: 'Proof-of-Concept', F: 'Functional', H: 'High' },
  },
  RL: {
    name: 'Remediation Level',
    group: 'temporal',
    values: { ...NOT_DEFINED, O: 'Official Fix', T: 'Temporary Fix', W: 'Workaround', U: 'Unavailable' },
  },
  RC: {
    name: 'Report Confidence',
    group: 'temporal',
    values: { ...NOT_DEFINED, U: 'Unknown', R: 'Reasonable', C: 'Confirmed' },
  },
  CR: { name: 'Confidentiality Requirement', group: 'environmental', values: REQ3 },
  IR: { name: 'Integrity Requirement', group: 'environmental', values: REQ3 },
  AR: { name: 'Availability Requirement', group: 'environmental', values: REQ3 },
  MAV: {
    name: 'Modified Attack Vector',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'Network', A: 'Adjacent', L: 'Local', P: 'Physical' },
  },
  MAC: {
    name: 'Modified Attack Complexity',
    group: 'environmental',
    values: { ...NOT_DEFINED, L: 'Low', H: 'High' },
  },
  MPR: {
    name: 'Modified Privileges Required',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'None', L: 'Low', H: 'High' },
  },
  MUI: {
    name: 'Modified User Interaction',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'None', R: 'Required' },
  },
  MS: {
    name: 'Modified Scope',
    group: 'environmental',
    values: { ...NOT_DEFINED, U: 'Unchanged', C: 'Changed' },
  },
  MC: { name: 'Modified Confidentiality', group: 'environmental', values: { ...NOT_DEFINED, ...CIA3 } },
  MI: { name: 'Modified Integrity', group: 'environmental', values: { ...NOT_DEFINED, ...CIA3 } },
  MA: { name: 'Modified Availability', group: 'environmental', values: { ...NOT_DEFINED, ...CIA3 } },
};

const ND = { ND: 'Not Defined' };
const CIA2: Values = { N: 'None', P: 'Partial', C: 'Complete' };
const REQ2: Values = { L: 'Low', M: 'Medium', H: 'High', ...ND };

const V2: Record<string, MetricDef> = {
  AV: { name: 'Access Vector', group: 'base', values: { L: 'Local', A: 'Adjacent Network', N: 'Network' } },
  AC: { name: 'Access Complexity', group: 'base', values: { H: 'High', M: 'Medium', L: 'Low' } },
  Au: { name: 'Authentication', group: 'base', values: { M: 'Multiple', S: 'Single', N: 'None' } },
  C: { name: 'Confidentiality Impact', group: 'base', values: CIA2 },
  I: { name: 'Integrity Impact', group: 'base', values: CIA2 },
  A: { name: 'Availability Impact', group: 'base', values: CIA2 },
  E: {
    name: 'Exploitability',
    group: 'temporal',
    values: { U: 'Unproven', POC: 'Proof-of-Concept', F: 'Functional', H: 'High', ...ND },
  },
  RL: {
    name: 'Remediation Level',
    group: 'temporal',
    values: { OF: 'Official Fix', TF: 'Temporary Fix', W: 'Workaround', U: 'Unavailable', ...ND },
  },
  RC: {
    name: 'Report Confidence',
    group: 'temporal',
    values: { UC: 'Unconfirmed', UR: 'Uncorroborated', C: 'Confirmed', ...ND },
  },
  CDP: {
    name: 'Collateral Damage Potential',
    group: 'environmental',
    values: { N: 'None', L: 'Low', LM: 'Low-Medium', MH: 'Medium-High', H: 'High', ...ND },
  },
  TD: {
    name: 'Target Distribution',
    group: 'environmental',
    values: { N: 'None', L: 'Low', M: 'Medium', H: 'High', ...ND },
  },
  CR: { name: 'Confidentiality Requirement', group: 'environmental', values: REQ2 },
  IR: { name: 'Integrity Requirement', group: 'environmental', values: REQ2 },
  AR: { name: 'Availability Requirement', group: 'environmental', values: REQ2 },
};

const HLN: Values = { H: 'High', L: 'Low', N: 'None' };
const MOD_HLN: Values = { ...NOT_DEFINED, ...HLN };

const V4: Record<string, MetricDef> = {
  AV: {
    name: 'Attack Vector',
    group: 'base',
    values: { N: 'Network', A: 'Adjacent', L: 'Local', P: 'Physical' },
  },
  AC: { name: 'Attack Complexity', group: 'base', values: { L: 'Low', H: 'High' } },
  AT: { name: 'Attack Requirements', group: 'base', values: { N: 'None', P: 'Present' } },
  PR: { name: 'Privileges Required', group: 'base', values: { N: 'None', L: 'Low', H: 'High' } },
  UI: { name: 'User Interaction', group: 'base', values: { N: 'None', P: 'Passive', A: 'Active' } },
  VC: { name: 'Vulnerable System Confidentiality', group: 'base', values: HLN },
  VI: { name: 'Vulnerable System Integrity', group: 'base', values: HLN },
  VA: { name: 'Vulnerable System Availability', group: 'base', values: HLN },
  SC: { name: 'Subsequent System Confidentiality', group: 'base', values: HLN },
  SI: { name: 'Subsequent System Integrity', group: 'base', values: HLN },
  SA: { name: 'Subsequent System Availability', group: 'base', values: HLN },
  E: {
    name: 'Exploit Maturity',
    group: 'threat',
    values: { ...NOT_DEFINED, A: 'Attacked', P: 'Proof-of-Concept', U: 'Unreported' },
  },
  CR: { name: 'Confidentiality Requirement', group: 'environmental', values: REQ3 },
  IR: { name: 'Integrity Requirement', group: 'environmental', values: REQ3 },
  AR: { name: 'Availability Requirement', group: 'environmental', values: REQ3 },
  MAV: {
    name: 'Modified Attack Vector',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'Network', A: 'Adjacent', L: 'Local', P: 'Physical' },
  },
  MAC: {
    name: 'Modified Attack Complexity',
    group: 'environmental',
    values: { ...NOT_DEFINED, L: 'Low', H: 'High' },
  },
  MAT: {
    name: 'Modified Attack Requirements',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'None', P: 'Present' },
  },
  MPR: {
    name: 'Modified Privileges Required',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'None', L: 'Low', H: 'High' },
  },
  MUI: {
    name: 'Modified User Interaction',
    group: 'environmental',
    values: { ...NOT_DEFINED, N: 'None', P: 'Passive', A: 'Active' },
  },
  MVC: { name: 'Modified Vulnerable System Confidentiality', group: 'environmental', values: MOD_HLN },
  MVI: { name: 'Modified Vulnerable System Integrity', group: 'environmental', values: MOD_HLN },
  MVA: { name: 'Modified Vulnerable System Availability', group: 'environmental', values: MOD_HLN },
  MSC: { name: 'Modified Subsequent System Confidentiality', group: 'environmental', values: MOD_HLN },
  MSI: {
    name: 'Modified Subsequent System Integrity',
    group: 'environmental',
    values: { ...MOD_HLN, S: 'Safety' },
  },
  MSA: {
    name: 'Modified Subsequent System Availability',
    group: 'environmental',
    values: { ...MOD_HLN, S: 'Safety' },
  },
  S: { name: 'Safety', group: 'supplemental', values: { ...NOT_DEFINED, N: 'Negligible', P: 'Present' } },
  AU: { name: 'Automatable', group: 'supplemental', values: { ...NOT_DEFINED, N: 'No', Y: 'Yes' } },
  R: {
    name: 'Recovery',
    group: 'supplemental',
    values: { ...NOT_DEFINED, A: 'Automatic', U: 'User', I: 'Irrecoverable' },
  },
  V: {
    name: 'Value Density',
    group: 'supplemental',
    values: { ...NOT_DEFINED, D: 'Diffuse', C: 'Concentrated' },
  },
  RE: {
    name: 'Vulnerability Response Effort',
    group: 'supplemental',
    values: { ...NOT_DEFINED, L: 'Low', M: 'Moderate', H: 'High' },
  },
  U: {
    name: 'Provider Urgency',
    group: 'supplemental',
    values: { ...NOT_DEFINED, Clear: 'Clear', Green: 'Green', Amber: 'Amber', Red: 'Red' },
  },
};

const TABLES: Record<CvssVersion, Record<string, MetricDef>> = { '2.0': V2, '3.0': V3, '3.1': V3, '4.0': V4 };

/** The version a metric key of the catalog names (`cvssV3_1` → 3.1). */
export function cvssVersionOfKey(key: string): CvssVersion | undefined {
  const m = /^cvssV(\d)_(\d)$/.exec(key);
  const version = m ? `${m[1]}.${m[2]}` : '';
  return version in TABLES ? (version as CvssVersion) : undefined;
}

/**
 * The metrics of a vector, in its order. A `CVSS:x.y/` prefix, when present, gives the version
 * (else `version`); v2 vectors are often written without one, sometimes in parentheses. Undefined
 * for something that is not a vector at all.
 */
export function parseCvssVector(vector: string, version?: CvssVersion): ParsedCvssVector | undefined {
  let text = vector.trim().replace(/^\((.*)\)$/, '$1');
  const prefix = /^CVSS:(\d\.\d)\//.exec(text);
  let v = version;
  if (prefix) {
    if (prefix[1]! in TABLES) v = prefix[1] as CvssVersion;
    text = text.slice(prefix[0].length);
  }
  if (!v || !text) return undefined;
  const table = TABLES[v];
  const metrics: CvssMetricValue[] = [];
  for (const part of text.split('/')) {
    const m = /^([A-Za-z]+):([A-Za-z]+)$/.exec(part);
    if (!m) return undefined;
    const [, key, value] = m as unknown as [string, string, string];
    const def = table[key];
    const valueName = def?.values[value];
    metrics.push({
      key,
      value,
      name: def?.name ?? key,
      valueName: valueName ?? value,
      group: def?.group ?? 'base',
      known: def !== undefined && valueName !== undefined,
    });
  }
  return { version: v, metrics };
}
