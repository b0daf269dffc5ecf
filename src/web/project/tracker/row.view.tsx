/** One row of the tracker: selection, the CVE, its triage controls (htmx swaps the row after a move). */
import type { CveBrowseRow } from '../../../domain/cve-list.ts';
import { TRIAGE_STATUSES } from '../../../domain/triage.ts';
import type { TriageState } from '../../../services/project-cves.service.ts';
import type { PageContext } from '../../kit/context.ts';
import { Time } from '../../kit/fields.tsx';
import { statusLabel } from '../../kit/format.ts';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import { BestSeverity, headline } from '../../shared/cve-list/view.tsx';
import type { Assignee } from './state.ts';

/** What a row shows: the CVE, its tracker entry (if any), the user's own tags on it. */
export interface RowData {
  cve: CveBrowseRow;
  tracker: TriageState | undefined;
  tags: string[];
}

/** The statuses as a select's options. */
export const STATUS_OPTIONS = TRIAGE_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }));

/** One row: selection, the CVE, its triage controls (one small form; htmx posts on change). */
export function TrackerRow({
  ctx,
  base,
  back,
  row,
  assignees,
  checked = false,
  errors,
}: {
  ctx: PageContext;
  base: string;
  back: string;
  row: RowData;
  assignees: Assignee[];
  checked?: boolean;
  errors?: FormErrors | undefined;
}) {
  const { cve } = row;
  const id = cve.cve_id;
  const formId = `move-${id}`;
  const status = row.tracker?.status ?? '';
  const assignee = row.tracker?.assignee ?? '';
  const moveUrl = `${base}/${id}/move`;
  const htmx = {
    'hx-post': moveUrl,
    // Sent by tracker.js: at once for a pick with the mouse, once on Enter or a digit from the keyboard.
    'hx-trigger': 'triage-save',
    'hx-target': 'closest tr',
    'hx-swap': 'outerHTML',
  };
  const problems = errors ? Object.values(errors).flat() : [];
  const known = assignees.some((a) => a.email === assignee);
  const title = headline(cve);
  return (
    <tr
      id={`row-${id}`}
      data-row
      data-href={`${base}/${id}`}
      class={problems.length ? 'has-error' : undefined}
    >
      <td class="select">
        <input
          type="checkbox"
          name="cve"
          value={id}
          form="bulk"
          checked={checked}
          data-select
          aria-label={`Select ${id}`}
        />
      </td>
      <td class="nowrap cve-id">
        <a href={`${base}/${id}`} data-open>
          {id}
        </a>
      </td>
      <td class="headline">
        {/* Clamped to two lines by app.css; the whole text in the tooltip. */}
        <span class="clamp" title={title}>
          {title}
        </span>
        {row.tags.length > 0 && (
          <span class="tags">
            <span class="visually-hidden">My tags: </span>
            {row.tags.map((t) => (
              <span class="badge tag">{t}</span>
            ))}
          </span>
        )}
      </td>
      <td class="nowrap severity">
        <BestSeverity cve={cve} />
        {cve.kev && <span class="badge kev">KEV</span>}
      </td>
      <td class="num epss" data-label="EPSS">
        {cve.epss === null ? <span class="muted">–</span> : cve.epss.toFixed(3)}
      </td>
      <td class="triage status">
        <form id={formId} method="post" action={moveUrl} class="inline-form">
          <Csrf ctx={ctx} />
          <input type="hidden" name="back" value={back} />
          <select
            name="status"
            aria-label={`Status of ${id}`}
            data-triage="status"
            aria-invalid={errors?.status ? 'true' : undefined}
            {...htmx}
          >
            <option value="" selected={status === ''}>
              No status
            </option>
            {STATUS_OPTIONS.map((o) => (
              <option value={o.value} selected={o.value === status}>
                {o.label}
              </option>
            ))}
          </select>
          <button type="submit" class="btn-small row-save">
            Save
          </button>
        </form>
      </td>
      <td class="triage assignee">
        <select
          name="assignee"
          form={formId}
          aria-label={`Assignee of ${id}`}
          data-triage="assignee"
          aria-invalid={errors?.assignee ? 'true' : undefined}
          {...htmx}
        >
          <option value="" selected={assignee === ''}>
            Nobody
          </option>
          {!known && assignee && (
            <option value={assignee} selected>
              {assignee}
            </option>
          )}
          {assignees.map((a) => (
            <option value={a.email} selected={a.email === assignee}>
              {a.username}
            </option>
          ))}
        </select>
        {problems.length > 0 && (
          <div class="error" role="alert">
            {problems.join(' ')}
          </div>
        )}
      </td>
      <td class="nowrap updated" data-label="Updated">
        <Time date={cve.updated_at} style={ctx.dateStyle} withTime={false} />
      </td>
    </tr>
  );
}
