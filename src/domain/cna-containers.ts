/**
 * A CVE's stored statements seen as the parts of a CVE 5 record the alias table reads
 * (`domain/vendor-aliases.ts`), the one place that rebuilds them: the CNA container from the CNA's
 * statement (`mitre`: its affected entries with their text and CPEs, title, description, and the
 * CNA's short name), for mapping a statement to keys and for learning; and, for learning, the CPEs of
 * CISA-ADP's and NVD's statements as further containers, so that a CVE with both the CNA's text and
 * anyone's CPEs teaches "this text means this key" (docs/catalog.md). Pure.
 */
import type { Cve5Containers } from './vendor-aliases.ts';

type Statement = { cpes: readonly string[] } & CnaStatement;

/** The parts of a CNA statement its container is rebuilt from. */
interface CnaStatement {
  affected?: readonly unknown[] | undefined;
  title?: string | undefined;
  description?: string | undefined;
  descriptionLang?: string | undefined;
  assigner?: string | undefined;
}

/** The CNA container a CNA statement stands for. */
export function cnaContainerOf(
  statement: CnaStatement | undefined,
): NonNullable<Cve5Containers['cna']> & { affected: readonly unknown[]; descriptions: unknown[] } {
  const description = statement?.description;
  return {
    affected: statement?.affected ?? [],
    ...(statement?.title ? { title: statement.title } : {}),
    descriptions: description ? [{ lang: statement.descriptionLang ?? 'en', value: description }] : [],
    ...(statement?.assigner ? { providerMetadata: { shortName: statement.assigner } } : {}),
  };
}

/** What the learner reads of a CVE: the CNA's container, and anyone else's CPEs. */
export function containersOfStatements(statements: {
  mitre?: Statement | undefined;
  vulnrichment?: Statement | undefined;
  nvd?: Statement | undefined;
}): Cve5Containers {
  const cpeContainers = [statements.vulnrichment, statements.nvd]
    .filter((s): s is Statement => !!s && Array.isArray(s.cpes) && s.cpes.length > 0)
    .map((s) => ({ affected: [{ cpes: s.cpes }] }));
  return { cna: cnaContainerOf(statements.mitre), adp: cpeContainers };
}
