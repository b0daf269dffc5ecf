/**
 * A CVE's stored statements seen as the parts of a CVE 5 record the alias learner reads
 * (`domain/vendor-aliases.ts`): the CNA container rebuilt from the CNA's statement (`mitre`: its
 * affected entries with their text and CPEs, title, description), and the CPEs of CISA-ADP's and
 * NVD's statements as further containers, so that a CVE with both the CNA's text and anyone's CPEs
 * teaches "this text means this key" (docs/catalog.md). Pure.
 */
import type { SourceDocument } from './cve.ts';
import type { Cve5Containers } from './vendor-aliases.ts';

type Statement = Pick<SourceDocument, 'cpes'> &
  Partial<Pick<SourceDocument, 'affected' | 'title' | 'description' | 'descriptionLang'>>;

export function containersOfStatements(statements: {
  mitre?: Statement | undefined;
  vulnrichment?: Statement | undefined;
  nvd?: Statement | undefined;
}): Cve5Containers {
  const cna = statements.mitre;
  const cpeContainers = [statements.vulnrichment, statements.nvd]
    .filter((s): s is Statement => !!s && Array.isArray(s.cpes) && s.cpes.length > 0)
    .map((s) => ({ affected: [{ cpes: s.cpes }] }));
  return {
    cna: {
      affected: cna?.affected ?? [],
      title: cna?.title,
      descriptions:
        cna?.description === undefined ? [] : [{ lang: cna.descriptionLang ?? 'en', value: cna.description }],
    },
    adp: cpeContainers,
  };
}
