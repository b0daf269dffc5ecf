/**
 * Page-numbered lists: a page request, its offset, and the rule that a page past the last one is
 * not found (page 1 of an empty list is fine). The HTTP envelope around a page is `api/pagination.ts`.
 */
import { AppError } from './errors.ts';

export interface PageRequest {
  page: number;
  pageSize: number;
}

export const offsetOf = (p: PageRequest) => (p.page - 1) * p.pageSize;

/** A page past the last: a 404 `not_found` (API v1 words it differently, so it has its own class). */
export class PageOutOfRangeError extends AppError {
  constructor() {
    super('not_found');
  }
}

/** Throws 404 `not_found` for a page past the last (page 1 of an empty list is fine). */
export function assertPageInRange(p: PageRequest, count: number): void {
  if (p.page > 1 && offsetOf(p) >= count) throw new PageOutOfRangeError();
}
