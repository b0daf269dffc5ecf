/**
 * A request URL as logs may keep it: the secrets that some URLs carry (a feed's secret, the
 * one-time links of setup, password reset and invitations, an email link's token, a key or password
 * in a query string, an OpenID Connect callback's code and state) replaced by `[redacted]`, at every log level.
 */

/** Path segments that are secrets: the one after each of these. */
const SECRET_AFTER = /(\/(?:feeds|setup|password-reset|invitations)\/)[^/?#]+?((?:\.atom)?(?=[/?#]|$))/g;

/** Query parameters that are secrets, whatever the path. */
const SECRET_PARAMS =
  /([?&](?:token|secret|key|api_?key|password|code|state|nonce|session_state|id_token_hint)=)[^&#]*/gi;

/** `url` with its secrets replaced by `[redacted]` (the shape of the URL kept, so a log line still says which page). */
export function redactUrl(url: string): string {
  return url.replace(SECRET_AFTER, '$1[redacted]$2').replace(SECRET_PARAMS, '$1[redacted]');
}
