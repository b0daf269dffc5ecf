/**
 * The Inventory tab's pages: the project's inventories with the upload form, one inventory's
 * components (searchable, paged) with what the last upload did, and one component's findings.
 */
import type { FindingWithFacts, InventorySummary, StoredComponent } from '../../../domain/inventory.ts';
import { Field, FormProblems, Time } from '../../kit/fields.tsx';
import { formatCount, statusLabel } from '../../kit/format.ts';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import { Pager } from '../../kit/paging.tsx';
import { projectPath } from '../../kit/paths.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import { SeverityBadge } from '../../kit/severity.tsx';
import { ProjectPage } from '../project-page.tsx';
import { ruleText } from './rules.ts';

export const COMPONENT_PAGE_SIZE = 50;

const FORMAT_LABELS: Record<string, string> = {
  cyclonedx: 'CycloneDX',
  'spdx-json': 'SPDX JSON',
  'spdx-tag-value': 'SPDX tag-value',
};

export const formatLabel = (i: Pick<InventorySummary, 'format' | 'specVersion'>) =>
  `${FORMAT_LABELS[i.format] ?? i.format} ${i.specVersion.replace(/^SPDX-/, '')}`;

export const inventoriesPath = (access: ProjectAccess, rest = '') =>
  projectPath(access.membership.name, access.project.name, `inventories${rest}`);

export const inventoryPath = (access: ProjectAccess, name: string, rest = '') =>
  inventoriesPath(access, `/${encodeURIComponent(name)}${rest}`);

/** What the last upload did, kept in the session for the page it lands on. */
export interface UploadNotice {
  project: string;
  inventory: string;
  components: number;
  versionUnknown: number;
  unmatchable: number;
  cves: number;
  entered: string[];
  resolved: { cveId: string; text: string }[];
}

function UploadForm({
  ctx,
  access,
  names,
  name,
  errors,
  submit,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  names: string[];
  name: string;
  errors: FormErrors | undefined;
  submit: string;
}) {
  return (
    <form method="post" action={inventoriesPath(access)} enctype="multipart/form-data" class="stacked">
      <Csrf ctx={ctx} />
      <FormProblems errors={errors} fields={['name', 'sbom']} />
      <Field
        label="Name"
        name="name"
        value={name}
        required
        maxlength={100}
        list="inventory-names"
        hint="One inventory per SBOM source, e.g. backend or firmware. Uploading under a name it already has replaces that inventory."
        errors={errors}
      />
      <datalist id="inventory-names">
        {names.map((n) => (
          <option value={n} />
        ))}
      </datalist>
      <div class="field">
        <label for="sbom">SBOM file</label>
        <input
          id="sbom"
          name="sbom"
          type="file"
          required
          accept=".json,.spdx,.cdx,.txt,application/json,text/spdx"
          aria-describedby="sbom-hint"
        />
        <div class="hint" id="sbom-hint">
          CycloneDX JSON 1.4 to 1.6, SPDX 2.3 JSON or tag-value; up to 50 MB.
        </div>
        {errors?.sbom && <div class="error">{errors.sbom.join(' ')}</div>}
      </div>
      <div class="form-actions">
        <button type="submit" class="btn-primary">
          {submit}
        </button>
      </div>
    </form>
  );
}

export function InventoriesPage({
  ctx,
  access,
  inventories,
  typedName = '',
  errors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  inventories: InventorySummary[];
  typedName?: string;
  errors?: FormErrors | undefined;
  done?: string | undefined;
}) {
  return (
    <ProjectPage ctx={ctx} access={access} tab="inventory" title="Inventory" done={done}>
      <section class="card">
        <h2>
          Inventories <span class="muted small">({formatCount(inventories.length)})</span>
        </h2>
        <p class="muted small">
          An inventory is an SBOM of something the project runs. Every CVE that affects one of its components
          at the version listed enters the tracker, now and whenever the catalog learns of one, from the
          CNA&apos;s own version ranges or NVD&apos;s. Uploading a newer SBOM under the same name marks the
          CVEs it no longer has as resolved.
        </p>
        {inventories.length === 0 ? (
          <p class="muted">
            No inventory yet.{' '}
            {access.isOwner
              ? 'Upload an SBOM below.'
              : `An owner of ${access.membership.name} can upload one.`}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Inventories of {access.project.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Format</th>
                  <th scope="col" class="num">
                    Components
                  </th>
                  <th scope="col" class="num">
                    CVEs
                  </th>
                  <th scope="col">Uploaded</th>
                </tr>
              </thead>
              <tbody>
                {inventories.map((i) => (
                  <tr>
                    <td>
                      <a href={inventoryPath(access, i.name)}>{i.name}</a>
                    </td>
                    <td class="nowrap">{formatLabel(i)}</td>
                    <td class="num">{formatCount(i.componentCount)}</td>
                    <td class="num">
                      <a href={inventoryPath(access, i.name, '?affected=1')}>{formatCount(i.cveCount)}</a>
                    </td>
                    <td class="small">
                      <Time date={i.uploadedAt} style={ctx.dateStyle} /> by {i.uploadedBy}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {access.isOwner && (
        <section class="card">
          <h2>Upload an SBOM</h2>
          <UploadForm
            ctx={ctx}
            access={access}
            names={inventories.map((i) => i.name)}
            name={typedName}
            errors={errors}
            submit="Upload"
          />
          <p class="muted small">
            From a build, the API does the same:{' '}
            <code>PUT …/projects/{access.project.name}/inventories/&lt;name&gt;</code> with the file as the
            body, or <code>vulntrack inventory upload</code>.
          </p>
        </section>
      )}
    </ProjectPage>
  );
}

function UploadResult({ access, notice }: { access: ProjectAccess; notice: UploadNotice }) {
  const cve = (id: string) => (
    <a href={projectPath(access.membership.name, access.project.name, `cves/${id}`)}>{id}</a>
  );
  return (
    <div class="notice ok upload-result" role="status">
      <p>
        <strong>Uploaded.</strong> {formatCount(notice.components)} components read
        {notice.versionUnknown > 0 && <>, {formatCount(notice.versionUnknown)} without a version</>}
        {notice.unmatchable > 0 && (
          <>, {formatCount(notice.unmatchable)} with nothing to match them by</>
        )}.{' '}
        {notice.cves === 0
          ? 'No CVE affects these versions.'
          : `${formatCount(notice.cves)} CVE${notice.cves === 1 ? '' : 's'} affect${notice.cves === 1 ? 's' : ''} them.`}
      </p>
      {notice.entered.length > 0 && (
        <p>
          New to the project: {notice.entered.slice(0, 20).map((id, i) => [i > 0 && ', ', cve(id)])}
          {notice.entered.length > 20 && ` and ${formatCount(notice.entered.length - 20)} more`}.
        </p>
      )}
      {notice.resolved.length > 0 && (
        <ul class="compact">
          {notice.resolved.slice(0, 20).map((r) => (
            <li>
              {cve(r.cveId)} resolved: {r.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function InventoryPage({
  ctx,
  access,
  inventory,
  components,
  count,
  page,
  search,
  affected,
  notice,
  errors,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  inventory: InventorySummary;
  components: StoredComponent[];
  count: number;
  page: number;
  search: string;
  affected: boolean;
  notice: UploadNotice | undefined;
  errors?: FormErrors | undefined;
}) {
  const base = inventoryPath(access, inventory.name);
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="inventory"
      title={inventory.name}
      actions={
        <>
          <a class="btn btn-small" href={`${base}/vex?format=cyclonedx`} download>
            VEX (CycloneDX)
          </a>
          <a class="btn btn-small" href={`${base}/vex?format=openvex`} download>
            VEX (OpenVEX)
          </a>
        </>
      }
    >
      <div class="crumbs">
        <a href={inventoriesPath(access)}>Inventories</a> / {inventory.name}
      </div>
      {notice && <UploadResult access={access} notice={notice} />}
      <p class="muted">
        {formatLabel(inventory)} · {formatCount(inventory.componentCount)} components ·{' '}
        {formatCount(inventory.cveCount)} CVEs · uploaded{' '}
        <Time date={inventory.uploadedAt} style={ctx.dateStyle} /> by {inventory.uploadedBy}
      </p>
      <section class="card">
        <form method="get" action={base} class="inline-form component-search" role="search">
          <label for="component-search" class="visually-hidden">
            Component name
          </label>
          <input
            id="component-search"
            type="search"
            name="search"
            value={search}
            placeholder="Component name"
          />
          <label class="check">
            <input type="checkbox" name="affected" value="1" checked={affected} /> Only with CVEs
          </label>
          <button type="submit" class="btn-small">
            Search
          </button>
        </form>
        {components.length === 0 ? (
          <p class="muted">
            {search || affected ? 'No component matches.' : 'This SBOM lists no component.'}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="data components">
              <caption class="visually-hidden">Components of {inventory.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Component</th>
                  <th scope="col">Version</th>
                  <th scope="col">Identifier</th>
                  <th scope="col" class="num">
                    CVEs
                  </th>
                </tr>
              </thead>
              <tbody>
                {components.map((c) => (
                  <tr>
                    <td>
                      <a href={`${base}/components/${c.position}`}>{c.name}</a>
                      {c.supplier && <div class="muted small">{c.supplier}</div>}
                    </td>
                    <td class="nowrap">{c.version ?? <span class="badge neutral">version unknown</span>}</td>
                    <td class="mono small identifier">{c.purl ?? c.cpe ?? <span class="muted">–</span>}</td>
                    <td class="num">
                      {c.findings > 0 ? (
                        <a href={`${base}/components/${c.position}`} class="badge sev-high">
                          {formatCount(c.findings)}
                        </a>
                      ) : (
                        <span class="muted">0</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          path={base}
          query={{ search, affected: affected ? '1' : '' }}
          page={page}
          pageSize={COMPONENT_PAGE_SIZE}
          count={count}
        />
      </section>
      {access.isOwner && (
        <section class="card">
          <h2>Upload a new version</h2>
          <UploadForm
            ctx={ctx}
            access={access}
            names={[inventory.name]}
            name={inventory.name}
            errors={errors}
            submit="Upload new version"
          />
          <form method="post" action={`${base}/delete`} class="inventory-delete">
            <Csrf ctx={ctx} />
            <p class="muted small">
              Deleting the inventory removes its components and findings: the CVEs only it brought leave the
              project&apos;s list (their triage is kept, should they come back).
            </p>
            <button type="submit" class="btn-small btn-danger">
              Delete {inventory.name}
            </button>
          </form>
        </section>
      )}
    </ProjectPage>
  );
}

export function ComponentPage({
  ctx,
  access,
  inventory,
  component,
  findings,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  inventory: string;
  component: StoredComponent;
  findings: FindingWithFacts[];
}) {
  const cvePath = (id: string) => projectPath(access.membership.name, access.project.name, `cves/${id}`);
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="inventory"
      title={`${component.name} ${component.version ?? ''}`.trim()}
    >
      <div class="crumbs">
        <a href={inventoriesPath(access)}>Inventories</a> /{' '}
        <a href={inventoryPath(access, inventory)}>{inventory}</a> / {component.name}
      </div>
      <section class="card">
        <h2>
          {component.name}{' '}
          {component.version ? (
            <span class="mono">{component.version}</span>
          ) : (
            <span class="badge neutral">version unknown</span>
          )}
        </h2>
        <dl class="summary-list">
          {component.purl && (
            <>
              <dt>Package URL</dt>
              <dd class="mono small">{component.purl}</dd>
            </>
          )}
          {component.cpe && (
            <>
              <dt>CPE</dt>
              <dd class="mono small">{component.cpe}</dd>
            </>
          )}
          {component.supplier && (
            <>
              <dt>Supplier</dt>
              <dd>{component.supplier}</dd>
            </>
          )}
        </dl>
        {!component.version && (
          <p class="muted small">
            The SBOM gives no version, so no range can say whether it is affected: it has no finding.
          </p>
        )}
      </section>
      <section class="card">
        <h2>
          CVEs affecting this version <span class="muted small">({formatCount(findings.length)})</span>
        </h2>
        {findings.length === 0 ? (
          <p class="muted">None: no CVE of the catalog says this version is affected.</p>
        ) : (
          <ul class="findings">
            {findings.map((f) => (
              <li class="finding">
                <div class="finding-head">
                  <a href={cvePath(f.cveId)} class="mono">
                    {f.cveId}
                  </a>{' '}
                  <SeverityBadge score={f.cvssScore} />
                  {f.kev && <span class="badge kev">KEV</span>}{' '}
                  <span class="badge neutral">{statusLabel(f.status)}</span>
                </div>
                {f.title && <div>{f.title}</div>}
                <ul class="small muted rules">
                  {f.rules.map((r) => (
                    <li>{ruleText(r)}</li>
                  ))}
                </ul>
                <div class="small muted">
                  Found <Time date={f.foundAt} style={ctx.dateStyle} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </ProjectPage>
  );
}
