/**
 * API v1 paging: `page` from 1, 10 items per page in the paged shape (the envelope of docs/api-v1.md,
 * links without `page_size`), 20 in the legacy shape (a bare array). A `page` that is not a positive
 * integer is the paged shape's 404 `Invalid page.` (as Django REST framework answers) and the legacy
 * shape's 400; a page past the last is a 404 in both.
 */
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiV1Shape } from '../../config.ts';
import { AppError } from '../../domain/errors.ts';
import { PageOutOfRangeError, type PageRequest } from '../../domain/paging.ts';
import { pageEnvelope } from '../pagination.ts';

export const PAGE_SIZE: Record<ApiV1Shape, number> = { paged: 10, legacy: 20 };

/** Pages beyond this are past the end of any list (and keep offsets far from overflow). */
const MAX_PAGE = 1_000_000;

/** `page` is read as text and checked here, so a bad value gets the shape's own answer. */
export const PageParam = Type.Optional(Type.String({ maxLength: 100 }));

export function pageOf(raw: string | undefined, shape: ApiV1Shape): PageRequest {
  const pageSize = PAGE_SIZE[shape];
  if (raw === undefined || raw === '') return { page: 1, pageSize };
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) {
    const page = Number(trimmed);
    if (page > MAX_PAGE) throw new PageOutOfRangeError();
    if (page >= 1) return { page, pageSize };
  }
  if (shape === 'paged') throw new PageOutOfRangeError();
  throw new AppError('validation_error', 'Invalid page.');
}

/** The paged shape's envelope of one page. */
export function envelope<T>(
  request: FastifyRequest,
  baseUrl: string | undefined,
  page: PageRequest,
  count: number,
  results: T[],
) {
  return pageEnvelope(request, baseUrl, page, count, results, false);
}
