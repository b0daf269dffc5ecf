/**
 * One entry of a CVE's change history: word-level diffs of its text, added and removed items
 * (folded and capped when long), and metric changes.
 */
import type { ComponentChildren } from 'preact';
import type { Reference } from '../../../domain/cve.ts';
import { vendorKeyLabel } from '../../../domain/cpe.ts';
import { wordDiff } from '../../../domain/word-diff.ts';
import type { ChangeEntry } from '../../../domain/cve-change.ts';
import type { AffectedSource } from '../../../domain/affected.ts';
import { AffectedTable, sourceLabel } from './affected.tsx';
import { asCvss, METRIC_LABELS, SafeLink } from './labels.tsx';

/** Words removed struck through, words added highlighted, as `<del>` and `<ins>`. */
export function WordDiff({ before, after }: { before: string; after: string }) {
  return (
    <p class="word-diff">
      {wordDiff(before, after).map((part) =>
        part.op === 'same' ? (
          part.text
        ) : part.op === 'removed' ? (
          <del class="diff-del">{part.text}</del>
        ) : (
          <ins class="diff-ins">{part.text}</ins>
        ),
      )}
    </p>
  );
}

function AddedRemoved({
  added,
  removed,
  show = (v) => v,
}: {
  added: unknown[];
  removed: unknown[];
  show?: (v: string) => ComponentChildren;
}) {
  const text = (v: unknown) =>
    typeof v === 'string' ? v : ((v as Reference | null)?.url ?? JSON.stringify(v));
  const shownAdded = added.slice(0, LIST_CAP);
  const shownRemoved = removed.slice(0, Math.max(0, LIST_CAP - shownAdded.length));
  const more = added.length + removed.length - shownAdded.length - shownRemoved.length;
  const list = (
    <ul class="added-removed">
      {shownAdded.map((v) => (
        <li>
          <ins class="diff-ins">added</ins> {show(text(v))}
        </li>
      ))}
      {shownRemoved.map((v) => (
        <li>
          <del class="diff-del">removed</del> {show(text(v))}
        </li>
      ))}
      {more > 0 && <li class="muted">and {more} more (API v2's change endpoint has the whole list)</li>}
    </ul>
  );
  if (added.length + removed.length <= FOLD_AFTER) return list;
  return (
    <details>
      <summary>
        {added.length} added, {removed.length} removed
      </summary>
      {list}
    </details>
  );
}

/** Longer lists of a change are folded (a CVE entering with 400 CPEs), and cut after LIST_CAP items. */
const FOLD_AFTER = 12;
const LIST_CAP = 60;

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A metric value as one line: a score and vector, KEV dates, EPSS, SSVC options, or compact JSON. */
function metricText(key: string, data: unknown): string {
  const cvss = asCvss(data);
  if (cvss) return `${cvss.score.toFixed(1)} ${cvss.vector}`;
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    if (key === 'kev')
      return (
        [
          d.dateAdded && `added ${String(d.dateAdded).slice(0, 10)}`,
          d.dueDate && `due ${String(d.dueDate).slice(0, 10)}`,
        ]
          .filter(Boolean)
          .join(', ') || 'listed'
      );
    if (key === 'ssvc' && d.options && typeof d.options === 'object')
      return Object.entries(d.options as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(', ');
  }
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function MetricsChange({ details }: { details: unknown }) {
  const d = (details ?? {}) as {
    added?: Record<string, unknown>;
    removed?: Record<string, unknown>;
    updated?: Record<string, { old: unknown; new: unknown }>;
  };
  return (
    <ul class="added-removed">
      {Object.entries(d.added ?? {}).map(([k, v]) => (
        <li>
          <ins class="diff-ins">added</ins> {METRIC_LABELS[k] ?? k}: <code>{metricText(k, v)}</code>
        </li>
      ))}
      {Object.entries(d.removed ?? {}).map(([k, v]) => (
        <li>
          <del class="diff-del">removed</del> {METRIC_LABELS[k] ?? k}: <code>{metricText(k, v)}</code>
        </li>
      ))}
      {Object.entries(d.updated ?? {}).map(([k, v]) => (
        <li>
          {METRIC_LABELS[k] ?? k}: <del class="diff-del">{metricText(k, v?.old)}</del> →{' '}
          <ins class="diff-ins">{metricText(k, v?.new)}</ins>
        </li>
      ))}
    </ul>
  );
}

/** An `affected` change: per container, what it states now, with what it stated before folded. */
function AffectedChange({ details }: { details: Record<string, unknown> }) {
  const before = asList(details.old) as AffectedSource[];
  const after = asList(details.new) as AffectedSource[];
  const key = (s: AffectedSource) => `${s.source} ${s.provider ?? ''}`;
  const keys = [...new Set([...before, ...after].map(key))];
  return (
    <>
      {keys.map((k) => {
        const old = before.find((s) => key(s) === k);
        const now = after.find((s) => key(s) === k);
        const label = sourceLabel((now ?? old)!);
        return (
          <div class="affected-change">
            <p>
              {label}: {!old ? 'entries added' : !now ? 'entries removed' : 'entries or ranges changed'}
            </p>
            {now && <AffectedTable source={now} />}
            {old && (
              <details>
                <summary>Before</summary>
                <AffectedTable source={old} />
              </details>
            )}
          </div>
        );
      })}
    </>
  );
}

const CHANGE_TITLES: Record<string, string> = {
  created: 'Entered the catalog',
  state: 'State',
  description: 'Description',
  title: 'Title',
  weaknesses: 'Weaknesses',
  references: 'References',
  cpes: 'CPEs',
  vendors: 'Vendors and products',
  metrics: 'Metrics',
  first_time: 'Vendors or products seen for the first time',
  affected: 'Affected products and versions',
};

/** One entry of a change (what one aspect of the CVE became). */
export function ChangeEntryView({ entry }: { entry: ChangeEntry }) {
  const details = entry.details as Record<string, unknown> | unknown[] | null;
  const d = (details && !Array.isArray(details) ? details : {}) as Record<string, unknown>;
  let body: ComponentChildren;
  switch (entry.type) {
    case 'created':
      body = <p>State {String(d.state ?? 'PUBLISHED')}.</p>;
      break;
    case 'state':
      body = (
        <p>
          <del class="diff-del">{String(d.old)}</del> → <ins class="diff-ins">{String(d.new)}</ins>
        </p>
      );
      break;
    case 'description':
    case 'title':
      body = (
        <WordDiff
          before={typeof d.old === 'string' ? d.old : ''}
          after={typeof d.new === 'string' ? d.new : ''}
        />
      );
      break;
    case 'first_time':
      body = <AddedRemoved added={asList(details)} removed={[]} show={vendorKeyLabel} />;
      break;
    case 'vendors':
      body = <AddedRemoved added={asList(d.added)} removed={asList(d.removed)} show={vendorKeyLabel} />;
      break;
    case 'weaknesses':
    case 'cpes':
      body = <AddedRemoved added={asList(d.added)} removed={asList(d.removed)} />;
      break;
    case 'references':
      body = (
        <>
          <AddedRemoved
            added={asList(d.added)}
            removed={asList(d.removed)}
            show={(url) => <SafeLink url={url} />}
          />
          {asList(d.changed).length > 0 && (
            <ul class="added-removed">
              {asList(d.changed).map((r) => (
                <li>
                  tags or name changed: <SafeLink url={(r as Reference).url} />
                </li>
              ))}
            </ul>
          )}
        </>
      );
      break;
    case 'metrics':
      body = <MetricsChange details={details} />;
      break;
    case 'affected':
      body = <AffectedChange details={d} />;
      break;
    default:
      body = <pre class="raw-json">{JSON.stringify(details, null, 2)}</pre>;
  }
  return (
    <div class="change-entry">
      <h4>{CHANGE_TITLES[entry.type] ?? entry.type}</h4>
      {body}
    </div>
  );
}
