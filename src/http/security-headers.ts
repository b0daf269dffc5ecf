/**
 * The security headers of every answer, pages, API and error pages alike (@fastify/helmet,
 * registered once by the server): a strict Content-Security-Policy (no inline script, no inline
 * style, nothing from another origin, no framing), no referrer beyond this site, and helmet's other
 * defaults. Swagger UI sets its own, equally strict policy with the hashes of its own scripts.
 */
import type { FastifyHelmetOptions } from '@fastify/helmet';

export const SECURITY_HEADERS: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
      upgradeInsecureRequests: null,
    },
  },
  // Pages are only ever same-origin; a referrer would leak one-time links' secrets.
  referrerPolicy: { policy: 'same-origin' },
};

/**
 * The headers with single sign-on configured: signing out is a form whose answer redirects to the
 * provider's end_session_endpoint, which Chromium checks against form-action, so the issuer's origin
 * is allowed there too (docs/web-ui.md, "Single sign-on").
 */
export function securityHeaders(oidcIssuer: string | undefined): FastifyHelmetOptions {
  if (!oidcIssuer) return SECURITY_HEADERS;
  const csp = SECURITY_HEADERS.contentSecurityPolicy as { directives: Record<string, unknown> };
  return {
    ...SECURITY_HEADERS,
    contentSecurityPolicy: {
      directives: { ...csp.directives, formAction: ["'self'", new URL(oidcIssuer).origin] },
    },
  };
}
