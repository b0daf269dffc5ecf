/**
 * How current the catalog is, as pages draw it (docs/web-ui.md, "Freshness"): the line the catalog
 * pages and the organization overview show under their heading, and the banner every page shows
 * when sync is off or a configured source is failing or stale. Both come from `ctx.freshness`,
 * read once per request (and kept 30 s by the service), never by a page of its own.
 */
import {
  ago,
  duration,
  troubledSources,
  type CatalogFreshness,
  type SourceFreshness,
} from '../../domain/freshness.ts';
import type { PageContext } from './context.ts';
import { formatCount, formatDateTime } from './format.ts';

function When({ date, freshness, ctx }: { date: Date; freshness: CatalogFreshness; ctx: PageContext }) {
  return (
    <time datetime={date.toISOString()} title={formatDateTime(date, ctx.dateStyle)}>
      {ago(date, freshness.at)}
    </time>
  );
}

function LineItem({
  source,
  freshness,
  ctx,
}: {
  source: SourceFreshness;
  freshness: CatalogFreshness;
  ctx: PageContext;
}) {
  return (
    <span class={source.stale ? 'freshness-item stale' : 'freshness-item'}>
      {source.label}{' '}
      {source.lastSuccessAt ? (
        <When date={source.lastSuccessAt} freshness={freshness} ctx={ctx} />
      ) : (
        'not synced yet'
      )}
      {source.stale && ' (stale)'}
      {!source.configured && ' (sync off)'}
    </span>
  );
}

/** "Catalog: CVE records (CVE Program) 12 min ago · NVD 3 h ago · …": when each source last advanced. */
export function FreshnessLine({ ctx }: { ctx: PageContext }) {
  const freshness = ctx.freshness;
  // No source ever synced, none configured: the banner already says sync is off.
  if (!freshness || freshness.sources.length === 0) return null;
  return (
    <p class="freshness muted small" data-freshness>
      Catalog:{' '}
      {freshness.sources.map((source, i) => (
        <>
          {i > 0 && ' · '}
          <LineItem source={source} freshness={freshness} ctx={ctx} />
        </>
      ))}
    </p>
  );
}

const clipError = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

function Trouble({
  source,
  freshness,
  ctx,
}: {
  source: SourceFreshness;
  freshness: CatalogFreshness;
  ctx: PageContext;
}) {
  const last = source.lastSuccessAt ? (
    <>
      last advanced <When date={source.lastSuccessAt} freshness={freshness} ctx={ctx} />
    </>
  ) : (
    'has never completed a sync'
  );
  return (
    <li>
      <strong>{source.label}</strong> {last}
      {source.stale && source.staleAfterMs !== null && ` (stale after ${duration(source.staleAfterMs)})`}
      {source.consecutiveFailures > 0 &&
        `; the last ${source.consecutiveFailures === 1 ? 'attempt' : `${source.consecutiveFailures} attempts`} failed` +
          (source.lastError ? `: ${clipError(source.lastError)}` : '')}
    </li>
  );
}

/** The layout's banner: sync is off, or which configured sources are failing or stale. Nothing when all is well. */
export function FreshnessBanner({ ctx }: { ctx: PageContext }) {
  const freshness = ctx.freshness;
  if (!freshness) return null;
  if (freshness.syncOff) {
    const catalog = freshness.catalog;
    return (
      <div class="notice warn freshness-banner" role="status" data-freshness-banner>
        <strong>Sync is off (SYNC_SOURCES=none)</strong>: this catalog is not updated; it holds{' '}
        {catalog
          ? `${formatCount(catalog.cves)} ${catalog.cves === 1 ? 'CVE' : 'CVEs'}`
          : 'what was imported'}
        {catalog?.lastImportAt && (
          <>
            , last imported <When date={catalog.lastImportAt} freshness={freshness} ctx={ctx} />
          </>
        )}
        . New CVEs and changes upstream do not appear here.
      </div>
    );
  }
  const troubled = troubledSources(freshness);
  if (troubled.length === 0) return null;
  return (
    <div class="notice warn freshness-banner" role="status" data-freshness-banner>
      <strong>The catalog may be out of date.</strong> Sync{' '}
      {troubled.some((s) => s.stale) ? 'is behind' : 'is failing'}:
      <ul>
        {troubled.map((source) => (
          <Trouble source={source} freshness={freshness} ctx={ctx} />
        ))}
      </ul>
    </div>
  );
}
