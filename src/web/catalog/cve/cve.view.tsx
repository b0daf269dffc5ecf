/**
 * A CVE's page: title and description, the summary, every CVSS vector, vendors and products with
 * their subscribe controls, the projects panel, weaknesses, references, NVD's configurations, the
 * sources and the change history.
 */
import type { NvdConfiguration } from '../../../domain/cve.ts';
import type { ProjectMatch } from '../../../domain/project-match.ts';
import type { CvePage } from '../../../services/catalog.service.ts';
import type { ProjectSubscriptionState } from '../../../services/project.service.ts';
import { Notice } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import { languageName } from '../../kit/format.ts';
import { Layout } from '../../kit/layout.tsx';
import { FreshnessLine } from '../../kit/freshness.tsx';
import type { PageContext } from '../../kit/context.ts';
import { projectPath } from '../../kit/paths.ts';
import { ProjectsPanel } from '../../shared/project-match-panel.tsx';
import { Configurations } from '../../shared/cve/configurations.tsx';
import { CvssBreakdown, vectorStatements } from '../../shared/cve/cvss.tsx';
import { Summary } from '../../shared/cve/summary.tsx';
import { History, References, Sources, Weaknesses } from './sections.view.tsx';
import { Vendors } from './vendors.view.tsx';

const SECTIONS = [
  ['summary', 'Summary'],
  ['description', 'Description'],
  ['cvss', 'CVSS'],
  ['vendors', 'Vendors and products'],
  ['weaknesses', 'Weaknesses'],
  ['references', 'References'],
  ['configurations', 'Configurations'],
  ['sources', 'Sources'],
  ['history', 'History'],
] as const;

/** A CVE's page. */
export function CvePageView({
  ctx,
  page,
  states,
  matches,
  historyPage,
  done,
  errors,
}: {
  ctx: PageContext;
  page: CvePage;
  states: ProjectSubscriptionState[] | undefined;
  matches: ProjectMatch[] | undefined;
  historyPage: number;
  done: string | undefined;
  errors?: FormErrors | undefined;
}) {
  const cve = page.cve;
  const rejected = cve.state === 'REJECTED';
  const vectors = vectorStatements(cve.metrics, page.sources);
  const configurations = (cve.nvd_configurations ?? []) as NvdConfiguration[];
  return (
    <Layout ctx={ctx} title={cve.title ? `${cve.cve_id}: ${cve.title}` : cve.cve_id} section="cves">
      <div class="crumbs">
        <a href="/cves">CVEs</a> / {cve.cve_id}
      </div>
      <div class="page-head">
        <h1>{cve.cve_id}</h1>
        {cve.kev && <span class="badge kev">Known exploited</span>}
      </div>
      {cve.title && <p class="cve-title">{cve.title}</p>}
      <FreshnessLine ctx={ctx} />
      {rejected && (
        <div class="banner-rejected" role="note">
          REJECTED: this CVE id was rejected by its CNA and should not be used. The text below is the
          rejection reason.
        </div>
      )}
      {done && <Notice>{done}</Notice>}
      <nav class="section-nav" aria-label="Sections of this page">
        {SECTIONS.map(([id, label]) => (
          <a href={`#${id}`}>{label}</a>
        ))}
        {matches && <a href="#projects">Projects</a>}
      </nav>
      <div class="two-col cve-detail">
        <div class="stack">
          <section id="description" aria-labelledby="description-title">
            <h2 id="description-title">Description</h2>
            {cve.description ? (
              <p class="cve-description" lang={page.descriptionLang ?? undefined}>
                {cve.description}
              </p>
            ) : (
              <p class="muted">No description yet.</p>
            )}
            {cve.description && (
              <p class="muted small">
                {page.descriptionLang
                  ? `Language: ${languageName(page.descriptionLang)} (${page.descriptionLang}).`
                  : 'Language: not stated by the record.'}
              </p>
            )}
          </section>
          <section id="cvss" aria-labelledby="cvss-title">
            <h2 id="cvss-title">CVSS</h2>
            {vectors.length === 0 ? (
              <p class="muted">No CVSS vector is stated for this CVE.</p>
            ) : (
              vectors.map((v, i) => <CvssBreakdown statement={v} idPrefix={`cvss-${i + 1}`} />)
            )}
          </section>
          <Vendors ctx={ctx} page={page} states={states} errors={errors} />
          {matches && ctx.currentOrg && (
            <ProjectsPanel
              ctx={ctx}
              org={ctx.currentOrg.name}
              cveId={cve.cve_id}
              matches={matches}
              projectCveUrl={(project) => projectPath(ctx.currentOrg!.name, project, `cves/${cve.cve_id}`)}
            />
          )}
          <Weaknesses page={page} />
          <References page={page} />
          <section id="configurations" aria-labelledby="configurations-title">
            <h2 id="configurations-title">Configurations</h2>
            {configurations.length === 0 ? (
              <p class="muted">NVD states no CPE configuration for this CVE.</p>
            ) : (
              <>
                <p class="muted small">
                  NVD's configurations: the CVE applies where a configuration's conditions all hold.
                </p>
                <Configurations configurations={configurations} />
              </>
            )}
          </section>
          <Sources ctx={ctx} page={page} />
          <History ctx={ctx} page={page} historyPage={historyPage} />
        </div>
        <div>
          <Summary cve={page.cve} ctx={ctx} />
        </div>
      </div>
    </Layout>
  );
}
