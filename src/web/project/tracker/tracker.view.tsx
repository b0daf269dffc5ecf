/** The tracker page: the filter bar, the rows, the pagers, the bulk edit bar (shown when rows are selected). */
import type { CveBrowsePage } from '../../../services/cve-browse.ts';
import type { ProjectAccess } from '../../kit/access.ts';
import type { PageContext } from '../../kit/context.ts';
import { FormProblems } from '../../kit/fields.tsx';
import type { FormErrors } from '../../kit/input.ts';
import type { PageShortcut } from '../../kit/layout.tsx';
import { projectPath } from '../../kit/paths.ts';
import { Pager } from '../../shared/cve-list/view.tsx';
import { ProjectPage } from '../project-page.tsx';
import type { BulkValues } from './bulk.form.ts';
import { BulkEditForm } from './bulk.view.tsx';
import { TrackerFilters } from './filters.view.tsx';
import { TrackerRow, type RowData } from './row.view.tsx';
import { trackerQueryString, type Assignee, type TrackerState } from './state.ts';

const SHORTCUTS: PageShortcut[] = [
  { keys: ['j'], label: 'Next CVE' },
  { keys: ['k'], label: 'Previous CVE' },
  { keys: ['x'], label: 'Select or unselect the CVE' },
  { keys: ['s'], label: "Change the CVE's status (arrows choose, Enter saves)" },
  { keys: ['a'], label: "Change the CVE's assignee (arrows choose, Enter saves)" },
  { keys: ['0–9'], label: 'In a status or assignee: save that choice at once (0 is none)' },
  { keys: ['o'], label: 'Open the CVE (or Enter)' },
];

/** The whole tracker page; `page` undefined when the filter is refused (then only the filters show). */
export function TrackerPage({
  ctx,
  access,
  state,
  page,
  rows,
  assignees,
  tagNames,
  bulk,
  rowErrors,
  done,
}: {
  ctx: PageContext;
  access: ProjectAccess;
  state: TrackerState;
  page: CveBrowsePage | undefined;
  rows: RowData[];
  assignees: Assignee[];
  tagNames: string[];
  bulk: BulkValues;
  rowErrors?: { cveId: string; errors: FormErrors } | undefined;
  done: string | undefined;
}) {
  const base = projectPath(access.membership.name, access.project.name, 'cves');
  const { form } = state.list;
  const query = trackerQueryString(state);
  const errors = state.errors;
  const checked = new Set(bulk.checked);
  return (
    <ProjectPage
      ctx={ctx}
      access={access}
      tab="tracker"
      title="Tracker"
      done={done}
      scripts={['tracker.js']}
      shortcuts={SHORTCUTS}
      actions={
        <a class="btn" href={`${base}/export.csv${query ? `?${query}` : ''}`} download>
          Export CSV
        </a>
      }
    >
      <FormProblems
        errors={{ ...errors, ...(bulk.errors._form ? { _form: bulk.errors._form } : {}) }}
        fields={[...Object.keys(form), 'status', 'assignee', 'tag']}
      />
      <TrackerFilters base={base} state={state} assignees={assignees} tagNames={tagNames} />
      {page && (
        <>
          <Pager path={base} query={query} page={page} />
          {rows.length > 0 && (
            <div class="table-wrap">
              <table class="data cve-list tracker" id="tracker">
                <thead>
                  <tr>
                    <th scope="col" class="select">
                      <input
                        type="checkbox"
                        data-select-all
                        aria-label="Select every CVE of this page"
                        hidden
                      />
                    </th>
                    <th scope="col">CVE</th>
                    <th scope="col">Title and my tags</th>
                    <th scope="col">Severity</th>
                    <th scope="col" class="num">
                      EPSS
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Assignee</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <TrackerRow
                      ctx={ctx}
                      base={base}
                      back={query}
                      row={row}
                      assignees={assignees}
                      checked={checked.has(row.cve.cve_id)}
                      errors={rowErrors?.cveId === row.cve.cve_id ? rowErrors.errors : undefined}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {rows.length > 0 && <Pager path={base} query={query} page={page} countId={null} />}
          {/* After the rows: the bar sticks to the bottom of the window while rows are selected. */}
          <BulkEditForm ctx={ctx} base={base} query={query} page={page} assignees={assignees} values={bulk} />
        </>
      )}
    </ProjectPage>
  );
}
