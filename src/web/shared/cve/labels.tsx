/**
 * How a CVE's statements are named on a page (providers, metrics), a CVSS value read from a
 * statement, and the one way to link an upstream URL.
 */
import type { ComponentChildren } from 'preact';

/** How each provider of statements is named on the page. */
export const PROVIDER_LABELS: Record<string, { name: string; about: string }> = {
  mitre: { name: 'CVE Program record', about: "The CNA's record in the CVE List (cvelistV5)." },
  vulnrichment: { name: 'CISA ADP (Vulnrichment)', about: "CISA's enrichment: SSVC, KEV, CVSS, CWE, CPEs." },
  nvd: { name: 'NVD', about: "NIST's National Vulnerability Database: CVSS, CWE, CPE configurations." },
  redhat: { name: 'Red Hat', about: "Red Hat's statement, from an OpenCVE knowledge-base file." },
  enrichment: {
    name: 'OpenCVE KB enrichment',
    about: "OpenCVE's enrichment (vendors, products), from its knowledge base.",
  },
  cisa: { name: 'CISA KEV', about: "CISA's Known Exploited Vulnerabilities catalog." },
  first: {
    name: 'FIRST EPSS',
    about: 'The Exploit Prediction Scoring System: probability of exploitation in 30 days.',
  },
};

/** A provider's name on the page (its own key when unknown). */
export const providerName = (p: string | null | undefined) =>
  p ? (PROVIDER_LABELS[p]?.name ?? p) : 'unknown';

/** How each metric of a statement is named on the page. */
export const METRIC_LABELS: Record<string, string> = {
  cvssV2_0: 'CVSS v2.0',
  cvssV3_0: 'CVSS v3.0',
  cvssV3_1: 'CVSS v3.1',
  cvssV4_0: 'CVSS v4.0',
  kev: 'KEV',
  ssvc: 'SSVC',
  threat_severity: 'Threat severity',
  epss: 'EPSS',
};

/** A CVSS score with its vector. */
export interface CvssData {
  score: number;
  vector: string;
}

/** A statement's CVSS value, or undefined when it holds no score and vector. */
export function asCvss(data: unknown): CvssData | undefined {
  const d = data as { score?: unknown; vector?: unknown } | null | undefined;
  return d && typeof d.score === 'number' && typeof d.vector === 'string'
    ? { score: d.score, vector: d.vector }
    : undefined;
}

/** A link only for a web address: a reference URL is upstream text and could be `javascript:`. */
export function SafeLink({ url, children }: { url: string; children?: ComponentChildren }) {
  if (!/^https?:\/\//i.test(url)) return <span class="mono">{children ?? url}</span>;
  return (
    <a href={url} rel="noopener noreferrer nofollow external">
      {children ?? url}
    </a>
  );
}
