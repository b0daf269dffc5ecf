/**
 * Page-numbered lists (docs/api-v2.md): `{count, next, previous, results}` with absolute `next` and
 * `previous` URLs on the host the client called (or VULNTRACK_BASE_URL), keeping the active filters.
 */
import type { FastifyRequest } from 'fastify';
import { offsetOf, type PageRequest } from '../domain/paging.ts';

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

function pageUrl(
  request: FastifyRequest,
  baseUrl: string | undefined,
  page: number,
  pageSize: number | undefined,
): string {
  const origin = baseUrl ?? `${request.protocol}://${request.host}`;
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set('page', String(page));
  if (pageSize !== undefined) url.searchParams.set('page_size', String(pageSize));
  return `${origin}${url.pathname}${url.search}`;
}

/**
 * The envelope of one page. `withPageSize`: v2 links carry `page_size`, v1's do not.
 * Call assertPageInRange first.
 */
export function pageEnvelope<T>(
  request: FastifyRequest,
  baseUrl: string | undefined,
  p: PageRequest,
  count: number,
  results: T[],
  withPageSize = true,
): Page<T> {
  const size = withPageSize ? p.pageSize : undefined;
  return {
    count,
    next: offsetOf(p) + results.length < count ? pageUrl(request, baseUrl, p.page + 1, size) : null,
    previous: p.page > 1 ? pageUrl(request, baseUrl, p.page - 1, size) : null,
    results,
  };
}
