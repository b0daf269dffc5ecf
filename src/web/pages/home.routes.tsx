/** The start page and the global search box's jump: a CVE id opens the CVE, anything else searches. */
import type { FastifyPluginAsync } from 'fastify';
import type { WebOptions } from '../web.plugin.ts';

const CVE_ID = /^cve-\d{4}-\d{4,}$/i;

export const homeRoutes: FastifyPluginAsync<WebOptions> = async (app) => {
  app.get('/', async (_request, reply) => reply.redirect('/cves'));

  app.get('/search', async (request, reply) => {
    const q = String((request.query as { q?: unknown }).q ?? '').trim();
    if (!q) return reply.redirect('/cves');
    if (CVE_ID.test(q)) return reply.redirect(`/cves/${q.toUpperCase()}`);
    return reply.redirect(`/cves?search=${encodeURIComponent(q)}`);
  });
};
