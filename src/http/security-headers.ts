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
