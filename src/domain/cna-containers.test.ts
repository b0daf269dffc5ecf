import { describe, expect, it } from 'vitest';
import { cnaContainerOf, containersOfStatements } from './cna-containers.ts';
import { AliasLearner } from './vendor-aliases.ts';

const WINDOWS = 'cpe:2.3:o:microsoft:windows_xp:-:sp2:*:*:*:*:*:*';

describe('containersOfStatements', () => {
  it("rebuilds the CNA container with the CNA's name, so the learner learns what a CNA's n/a records name", () => {
    const learner = new AliasLearner();
    const mitre = {
      cpes: [],
      affected: [{ vendor: 'n/a', product: 'n/a' }],
      description: 'Argument injection in the Windows Object Packager.',
      assigner: 'microsoft',
    };
    expect(learner.learn(containersOfStatements({ mitre, nvd: { cpes: [WINDOWS] } }))).toBe(true);
    expect(learner.toJSON().vendors['@microsoft']).toEqual({ records: 1, keys: { microsoft: 1 } });
  });

  it('names no CNA for a statement without one, and keeps the description with its language', () => {
    expect(cnaContainerOf({ description: 'Texte.', descriptionLang: 'fr', affected: [] })).toEqual({
      affected: [],
      descriptions: [{ lang: 'fr', value: 'Texte.' }],
    });
  });
});
