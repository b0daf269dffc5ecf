/** The sections of a CVE's page drawn from the catalog alone: weaknesses, references, sources, history. */
import type { Reference } from '../../../domain/cve.ts';
import type { CvePage, CveChangeRecord } from '../../../services/catalog.service.ts';
import { Time } from '../../kit/fields.tsx';
import { formatCount } from '../../kit/format.ts';
import type { PageContext } from '../../kit/context.ts';
import { ChangeEntryView } from '../../shared/cve/changes.tsx';
import { METRIC_LABELS, PROVIDER_LABELS, providerName, SafeLink } from '../../shared/cve/labels.tsx';
import { cvePath, HISTORY_PAGE_SIZE, sourcePath } from './cve-url.ts';

/** The weaknesses (CWE) a CVE names, each with its name when known. */
export function Weaknesses({ page }: { page: CvePage }) {
  return (
    <section id="weaknesses" aria-labelledby="weaknesses-title">
      <h2 id="weaknesses-title">Weaknesses</h2>
      {page.cve.weaknesses.length === 0 ? (
        <p class="muted">No weakness (CWE) is named for this CVE.</p>
      ) : (
        <ul class="weakness-list">
          {page.cve.weaknesses.map((id) => (
            <li>
              {/^CWE-\d+$/.test(id) ? <a href={`/weaknesses/${id}`}>{id}</a> : <span class="mono">{id}</span>}
              {page.weaknessNames.has(id) && <span> · {page.weaknessNames.get(id)}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A CVE's references with their tags (links only for web addresses). */
export function References({ page }: { page: CvePage }) {
  const refs = page.cve.references as Reference[];
  return (
    <section id="references" aria-labelledby="references-title">
      <h2 id="references-title">References</h2>
      {refs.length === 0 ? (
        <p class="muted">No references.</p>
      ) : (
        <div class="table-wrap">
          <table class="data references">
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Tags</th>
              </tr>
            </thead>
            <tbody>
              {refs.map((r) => (
                <tr>
                  <td class="ref-url">
                    <SafeLink url={r.url} />
                    {r.name && r.name !== r.url && <div class="muted small">{r.name}</div>}
                  </td>
                  <td>
                    {r.tags.map((t) => (
                      <span class="chip">{t}</span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** What each provider states about a CVE, with its raw record folded. */
export function Sources({ ctx, page }: { ctx: PageContext; page: CvePage }) {
  const id = page.cve.cve_id;
  return (
    <section id="sources" aria-labelledby="sources-title">
      <h2 id="sources-title">Sources</h2>
      <p class="muted small">
        What each provider states about this CVE; the page above merges them (the CVE record first, then
        CISA's enrichment, then NVD).
      </p>
      {page.sources.map((s) => {
        const url = sourcePath(id, s.provider);
        const stated = Object.entries(s.metrics)
          .filter(
            ([, v]) =>
              v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v as object).length === 0),
          )
          .map(([k]) => METRIC_LABELS[k] ?? k);
        return (
          <div class="card source" id={`source-${s.provider}`}>
            <h3>{providerName(s.provider)}</h3>
            <p class="small muted">
              {PROVIDER_LABELS[s.provider]?.about} Last written{' '}
              <Time date={s.updated_at} style={ctx.dateStyle} />.
              {stated.length > 0 && ` States: ${stated.join(', ')}.`}
            </p>
            <details
              class="raw-record"
              hx-get={url}
              hx-trigger="toggle once"
              hx-target="find .raw-slot"
              hx-swap="innerHTML"
            >
              <summary>Raw record</summary>
              <div class="raw-slot">
                <a href={url}>Open the raw record of {providerName(s.provider)}</a>
              </div>
            </details>
          </div>
        );
      })}
    </section>
  );
}

function HistoryItem({ change, ctx }: { change: CveChangeRecord; ctx: PageContext }) {
  return (
    <li class="card change" id={`change-${change.id}`}>
      <h3>
        <Time date={change.created_at} style={ctx.dateStyle} />{' '}
        {change.types.map((t) => (
          <span class="chip">{t}</span>
        ))}
      </h3>
      {change.data.map((entry) => (
        <ChangeEntryView entry={entry} />
      ))}
    </li>
  );
}

/** A CVE's change history, newest first, one page of it. */
export function History({
  ctx,
  page,
  historyPage,
}: {
  ctx: PageContext;
  page: CvePage;
  historyPage: number;
}) {
  const { count, items } = page.changes;
  const pages = Math.max(1, Math.ceil(count / HISTORY_PAGE_SIZE));
  const base = cvePath(page.cve.cve_id);
  const link = (n: number) => (n === 1 ? `${base}#history` : `${base}?history=${n}#history`);
  return (
    <section id="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <p class="muted small">
        {formatCount(count)} change{count === 1 ? '' : 's'} recorded, newest first. EPSS moves daily and is
        not recorded as a change.
      </p>
      <ol class="history">
        {items.map((c) => (
          <HistoryItem change={c} ctx={ctx} />
        ))}
      </ol>
      {pages > 1 && (
        <nav class="pager" aria-label="History pages">
          {historyPage > 1 ? <a href={link(historyPage - 1)}>← Newer changes</a> : <span />}
          <span class="muted small">
            Page {historyPage} of {pages}
          </span>
          {historyPage < pages ? <a href={link(historyPage + 1)}>Older changes →</a> : <span />}
        </nav>
      )}
    </section>
  );
}
