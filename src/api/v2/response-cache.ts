/**
 * Answers of API v2 reads kept as the JSON text sent, for as long as what they show cannot have
 * changed: a CVE list page, a CVE, a project's CVE list page. Their key holds the versions the answer
 * was read at — the catalog version (every import batch that changes a CVE bumps it) and, for a
 * project's list, the project's list version (subscriptions, tracker entries, assignee emails:
 * migration 0010) — so an import or a tracker move makes every older answer unreachable at once,
 * in every process. A request learns the current catalog version with its token (same statement),
 * so a hit costs no other database read.
 *
 * Keys also hold the caller's organization and the URL as called (origin, path, query): links in
 * a page are absolute, and nothing cached for one organization is ever served to another. Lists
 * whose `q` names projects (they depend on other projects' subscriptions) and CSV downloads are
 * never cached. API_RESPONSE_CACHE_MB=0 turns the cache off; the benchmark measures both.
 *
 * Per process, bounded by the bytes of the answers kept (least recently used first).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** API v2's cache of answers, one per app (decorated in app.ts). */
    responseCache: ResponseCache;
  }
  interface FastifyRequest {
    /** The catalog version read with the caller's token (v2.plugin.ts). */
    catalogVersion?: number;
    /** Set by a cacheable route's handler: the answer is kept under this key once sent (200 only). */
    responseCacheKey?: string;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

export class ResponseCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;
  /** Answers served from the cache (tests). */
  hits = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /**
   * Sends the answer kept for this GET at `catalogVersion` (and `scope`: more versions its answer
   * depends on) and returns the reply; undefined when there is none, or no version to key it by.
   */
  answered(
    request: FastifyRequest,
    reply: FastifyReply,
    catalogVersion: number | undefined,
    scope = '',
  ): FastifyReply | undefined {
    if (!this.enabled || catalogVersion === undefined) return undefined;
    const key = responseKey(request, catalogVersion, scope);
    const body = this.entries.get(key);
    if (body === undefined) return undefined;
    this.hits++;
    // Refresh its place in the eviction order.
    this.entries.delete(key);
    this.entries.set(key, body);
    return reply.type(JSON_TYPE).send(body);
  }

  /** Keeps this GET's answer, once sent with 200 (v2.plugin.ts), under the versions it was read at. */
  remember(request: FastifyRequest, catalogVersion: number | undefined, scope = ''): void {
    if (this.enabled && catalogVersion !== undefined)
      request.responseCacheKey = responseKey(request, catalogVersion, scope);
  }

  /** Keeps `body` under `key` (an answer larger than a tenth of the budget is not kept). */
  keep(key: string, body: string): void {
    const size = key.length + body.length;
    if (!this.enabled || size > this.maxBytes / 10) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= key.length + previous.length;
    }
    this.entries.set(key, body);
    this.bytes += size;
    for (const [oldKey, oldBody] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= oldKey.length + oldBody.length;
    }
  }
}

/** The key of a GET's answer: the caller's organization, the versions it was read at, the URL as called. */
function responseKey(request: FastifyRequest, catalogVersion: number, scope: string): string {
  return `${request.auth!.organizationId} ${catalogVersion} ${scope} ${request.protocol}://${request.host}${request.url}`;
}

/** Whether an advanced query may name projects (then its list is not cached): any mention of the field. */
export function mayNameProjects(q: string | undefined): boolean {
  return q !== undefined && /project/i.test(q);
}
