/**
 * `/feeds/<secret>.atom`: a user's Atom feed of a project's changes (the last FEED_DAYS days, the
 * latest ATOM_MAX_ENTRIES changes), made on the project's dashboard. Public (feed readers do not
 * sign in): the secret is the credential. An unknown or replaced secret, a user who left the
 * organization, or an inactive project answers 404.
 */
import type { FastifyPluginAsync } from 'fastify';
import { cveSummary, eventLabel, FEED_DAYS } from '../../domain/dashboard.ts';
import { atomDocument } from './atom.ts';
import type { WebOptions } from '../kit/context.ts';
import { projectPath } from '../kit/paths.ts';

export const feedRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const baseUrl = services.config.baseUrl;

  app.get<{ Params: { secret: string } }>(
    '/feeds/:secret.atom',
    { config: { public: true } },
    async (request, reply) => {
      const feed = await services.dashboards.atomFeed(request.params.secret);
      const base = baseUrl ?? `${request.protocol}://${request.host}`;
      const dashboard = `${base}${projectPath(feed.organization, feed.project)}`;
      const xml = atomDocument({
        id: dashboard,
        title: `${feed.organization} / ${feed.project}: CVE changes`,
        subtitle: `What changed in the CVEs of ${feed.project} in the last ${FEED_DAYS} days.`,
        updated: feed.updated,
        self: `${base}/feeds/${request.params.secret}.atom`,
        alternate: dashboard,
        author: 'vulntrack',
        entries: feed.changes.map((c) => {
          const events = c.events.length ? c.events.map(eventLabel) : ['updated'];
          const facts = [
            c.highest_cvss === null ? 'no CVSS score' : `CVSS ${c.highest_cvss.toFixed(1)}`,
            ...(c.kev ? ['in CISA KEV'] : []),
          ];
          return {
            // An inventory event has no uuid: its id is the dashboard's, with the event's seq.
            id: c.change_id ? `urn:uuid:${c.change_id}` : `${dashboard}#inventory-event-${c.event_seq}`,
            title: `${c.cve_id}: ${events.join(', ')}`,
            updated: c.changed_at,
            link: `${base}/cves/${c.cve_id}`,
            categories: c.events,
            summary: `${cveSummary(c) || 'No description.'} (${facts.join(', ')})`,
          };
        }),
      });
      return reply
        .type('application/atom+xml; charset=utf-8')
        .header('Cache-Control', 'private, max-age=300')
        .header('X-Robots-Tag', 'noindex')
        .send(xml);
    },
  );
};
