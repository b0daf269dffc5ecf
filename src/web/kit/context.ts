/**
 * What every page is handed: the request's page context (who is signed in, their organizations, the
 * CSRF token, the assets), the services pages may call, and Fastify's types widened for the web
 * (`request.page`, the session's fields, `config.public`). Types only: any web module may import
 * this, and it imports nothing of web/ but the kit's own types.
 */
import type { CatalogFreshness } from '../../domain/freshness.ts';
import type { WebUser } from '../../domain/user.ts';
import type { Services } from '../../services/services.ts';
import type { OrganizationMembership } from '../../services/web-session.service.ts';
import type { Asset, AssetName } from './assets.ts';
import type { DateStyle } from './format.ts';

/** What every page knows about the request: who is signed in, their organizations, the CSRF token. */
export interface PageContext {
  user: WebUser | undefined;
  organizations: OrganizationMembership[];
  /** The organization the page is about, or the one last visited. */
  currentOrg: OrganizationMembership | undefined;
  csrfToken: string;
  assets: Record<AssetName, Asset>;
  /** The request's path and query, for `?next=` and highlighting the current section. */
  url: string;
  dateStyle: DateStyle;
  /** How current the catalog is (signed-in pages only): the freshness line and the layout's banner. */
  freshness?: CatalogFreshness;
}

declare module 'fastify' {
  interface Session {
    /** The signed-in user. */
    userId?: string;
    /** The organization the user last looked at (the switcher's default). */
    orgName?: string;
  }
  interface FastifyRequest {
    /** Set for every web page before its handler runs. */
    page: PageContext;
  }
  interface FastifyContextConfig {
    /** A page anyone may open without signing in (sign-in, first administrator, links from emails). */
    public?: boolean;
    /**
     * A form authorized by a secret token of its own link (a notification email's confirm or
     * unsubscribe), not by the session: it takes no CSRF token, so a mail client's one-click POST works.
     */
    linkToken?: boolean;
  }
}

export type WebServices = Pick<
  Services,
  | 'config'
  | 'webSessions'
  | 'security'
  | 'accounts'
  | 'catalog'
  | 'organizations'
  | 'members'
  | 'oidc'
  | 'tokens'
  | 'auditLog'
  | 'projects'
  | 'projectKeywords'
  | 'projectCves'
  | 'inventories'
  | 'tracker'
  | 'trackerComments'
  | 'projectMatch'
  | 'secret'
  | 'savedViews'
  | 'invitations'
  | 'statistics'
  | 'dashboards'
  | 'tags'
  | 'notifications'
  | 'automations'
  | 'reports'
  | 'deliveries'
  | 'events'
  | 'onboarding'
  | 'freshness'
>;

export interface WebOptions {
  services: WebServices;
}
