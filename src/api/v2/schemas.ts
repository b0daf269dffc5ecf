/** TypeBox schemas shared by API v2 routes: paging, the error envelope, lists. */
import { Type, type TSchema } from '@fastify/type-provider-typebox';

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  ),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'Items per page (default 20, at most 100).',
    }),
  ),
};

export const pageOf = (query: { page?: number; page_size?: number }) => ({
  page: query.page ?? 1,
  pageSize: query.page_size ?? 20,
});

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
      required_scope: Type.Optional(Type.String()),
    }),
  },
  { $id: 'Error' },
);

export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer({ description: 'Total number of items.' }),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'URL of the next page, null on the last.',
    }),
    previous: Type.Union([Type.String(), Type.Null()], {
      description: 'URL of the previous page, null on the first.',
    }),
    results: Type.Array(item),
  });
}

const errorRef = Type.Ref('Error');

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const commonErrors = {
  400: errorRef,
  401: errorRef,
  403: errorRef,
  404: errorRef,
  429: errorRef,
};

export const Timestamp = Type.String({ description: 'ISO 8601 UTC, ending in Z.' });
export const Uuid = Type.String({ format: 'uuid' });
