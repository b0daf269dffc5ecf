import { describe, expect, it } from 'vitest';
import { cvssVersionOfKey, parseCvssVector } from './cvss-vector.ts';

const named = (vector: string, version?: Parameters<typeof parseCvssVector>[1]) =>
  parseCvssVector(vector, version)!.metrics.map((m) => `${m.name}: ${m.valueName}`);

describe('parseCvssVector', () => {
  it('names the metrics of Log4Shell’s CVSS v3.1 vector', () => {
    const parsed = parseCvssVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H');
    expect(parsed?.version).toBe('3.1');
    expect(named('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H')).toEqual([
      'Attack Vector: Network',
      'Attack Complexity: Low',
      'Privileges Required: None',
      'User Interaction: None',
      'Scope: Changed',
      'Confidentiality: High',
      'Integrity: High',
      'Availability: High',
    ]);
    expect(parsed!.metrics.every((m) => m.known && m.group === 'base')).toBe(true);
  });

  it('reads a v2 vector without prefix, in parentheses too, with the version given', () => {
    expect(named('AV:N/AC:M/Au:N/C:C/I:C/A:C', '2.0')).toEqual([
      'Access Vector: Network',
      'Access Complexity: Medium',
      'Authentication: None',
      'Confidentiality Impact: Complete',
      'Integrity Impact: Complete',
      'Availability Impact: Complete',
    ]);
    expect(parseCvssVector('(AV:L/AC:H/Au:S/C:P/I:N/A:N/E:POC)', '2.0')?.metrics.at(-1)).toMatchObject({
      name: 'Exploitability',
      valueName: 'Proof-of-Concept',
      group: 'temporal',
    });
    expect(parseCvssVector('AV:N/AC:L', undefined)).toBeUndefined();
  });

  it('reads CVSS v4.0 base, threat and supplemental metrics', () => {
    const parsed = parseCvssVector(
      'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:A/AU:Y/U:Red',
    );
    expect(parsed?.version).toBe('4.0');
    const byKey = Object.fromEntries(parsed!.metrics.map((m) => [m.key, m]));
    expect(byKey.AT).toMatchObject({ name: 'Attack Requirements', valueName: 'None' });
    expect(byKey.VC).toMatchObject({ name: 'Vulnerable System Confidentiality', valueName: 'High' });
    expect(byKey.SA).toMatchObject({ name: 'Subsequent System Availability', valueName: 'None' });
    expect(byKey.E).toMatchObject({ name: 'Exploit Maturity', valueName: 'Attacked', group: 'threat' });
    expect(byKey.AU).toMatchObject({ name: 'Automatable', valueName: 'Yes', group: 'supplemental' });
    expect(byKey.U).toMatchObject({ name: 'Provider Urgency', valueName: 'Red' });
  });

  it('shows a metric or value it does not know as written, flagged', () => {
    const parsed = parseCvssVector('CVSS:3.1/AV:Q/ZZ:N');
    expect(parsed!.metrics).toEqual([
      { key: 'AV', name: 'Attack Vector', value: 'Q', valueName: 'Q', group: 'base', known: false },
      { key: 'ZZ', name: 'ZZ', value: 'N', valueName: 'N', group: 'base', known: false },
    ]);
    expect(parseCvssVector('not a vector', '3.1')).toBeUndefined();
    expect(parseCvssVector('', '3.1')).toBeUndefined();
  });

  it('maps catalog metric keys to versions', () => {
    expect(cvssVersionOfKey('cvssV3_1')).toBe('3.1');
    expect(cvssVersionOfKey('cvssV2_0')).toBe('2.0');
    expect(cvssVersionOfKey('kev')).toBeUndefined();
  });
});
