/**
 * Single sign-on with OpenID Connect (docs/web-ui.md, "Single sign-on"): the Authorization Code flow
 * with PKCE, `state` and `nonce`, through openid-client (discovery, the token request, the ID
 * token's signature and claims: never checks of our own). Then the account: the user linked to the
 * issuer's `sub`, made at the first sign-in (just in time), or an existing account with the same
 * email linked once its owner proved it with their password (or `vulntrack user link-sso`). Then the
 * groups: the memberships of the organizations OIDC_GROUP_ROLES names are set from the groups claim,
 * through MemberService (a removed member's tokens are revoked as on any removal), actor `sso`.
 *
 * Nothing here logs a code, state, nonce, token or secret: the `warn` messages name only what went
 * wrong and the organizations, groups or usernames concerned.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import { isLoopbackHttp, type OidcConfig } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { AccountRepository } from '../db/account.repository.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { SsoIdentityRepository } from '../db/sso-identity.repository.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../domain/errors.ts';
import type { Role } from '../domain/member.ts';
import { EMAIL, normalizeEmail, USERNAME } from '../domain/names.ts';
import { groupsOfClaim, mappedOrganizations, rolesFromGroups } from '../domain/oidc-groups.ts';
import { hashPassword } from '../domain/passwords.ts';
import type { WebUser } from '../domain/user.ts';
import type { MemberService } from './member.service.ts';
import { ACCOUNT_DISABLED, webUserOf } from './web-session.service.ts';

/** Who the audit log names for what a sign-in's groups changed. */
export const SSO_ACTOR: Actor = { type: 'system', id: null, name: 'sso' };

/** What a sign-in must carry from its start to its callback, in the server-side session only. */
export interface OidcChecks {
  state: string;
  nonce: string;
  verifier: string;
}

/** An identity waiting to be linked to the existing account of its email (by a password sign-in). */
export interface PendingLink {
  issuer: string;
  subject: string;
  email: string;
}

export type OidcOutcome = { kind: 'signed_in'; user: WebUser } | { kind: 'link_required'; link: PendingLink };

/**
 * A sign-in that did not happen: `sentence` for the person (one sentence, no secret, nothing of the
 * provider's own text), `reason` for the log (what openid-client or the provider said, without values).
 */
export class OidcSignInError extends Error {
  constructor(
    readonly sentence: string,
    readonly reason: string,
    readonly status: number = 400,
  ) {
    super(sentence);
    this.name = 'OidcSignInError';
  }
}

const UNREACHABLE =
  'The sign-in provider cannot be reached at the moment. Try again in a minute, or tell an administrator.';
const NOT_VERIFIED = 'The sign-in could not be verified. Start again from the sign-in page.';
/** An error code as OAuth 2.0 defines them (anything else is not repeated to the person). */
const ERROR_CODE = /^[a-z_]{1,64}$/;

export class OidcService {
  private configuration: Promise<client.Configuration> | undefined;
  private readonly accounts: AccountRepository;
  private readonly audit: AuditRepository;
  private readonly identities: SsoIdentityRepository;
  private readonly warn: (message: string) => void;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly config: OidcConfig,
    private readonly options: {
      baseUrl: string;
      members: MemberService;
      warn?: (message: string) => void;
      /** Seconds before a request to the provider gives up (default 10). */
      timeout?: number;
    },
  ) {
    this.accounts = new AccountRepository(db);
    this.audit = new AuditRepository(db);
    this.identities = new SsoIdentityRepository(db);
    this.warn = options.warn ?? ((message) => process.stderr.write(`vulntrack: ${message}\n`));
  }

  get buttonLabel(): string {
    return this.config.buttonLabel;
  }

  /** OIDC_ONLY: password sign-in, reset and self-made accounts only for server administrators. */
  get only(): boolean {
    return this.config.only;
  }

  get redirectUri(): string {
    return `${this.options.baseUrl}/auth/oidc/callback`;
  }

  /** The provider's configuration, discovered once (again after a failure). */
  private discover(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(
        new URL(this.config.issuer),
        this.config.clientId,
        this.config.clientSecret,
        this.config.clientSecret ? client.ClientSecretBasic(this.config.clientSecret) : client.None(),
        {
          timeout: this.options.timeout ?? 10,
          // Plain http only for a provider on this machine (tests, a local provider): OIDC_ISSUER allows no other.
          ...(isLoopbackHttp(this.config.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
        },
      )
      .catch((err: unknown) => {
        this.configuration = undefined;
        throw new OidcSignInError(
          UNREACHABLE,
          `discovery of ${this.config.issuer} failed: ${describe(err)}`,
          503,
        );
      });
    return this.configuration;
  }

  /** The provider's authorization URL for a new sign-in, and the checks its callback must pass. */
  async begin(): Promise<{ url: string; checks: OidcChecks }> {
    const config = await this.discover();
    const checks = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.config.scopes,
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, checks };
  }

  /**
   * The callback: `query` is the callback's query string. openid-client checks the state, the
   * provider's `iss`, exchanges the code with the PKCE verifier and checks the ID token (signature,
   * issuer, audience, expiry, nonce); the claims are the ID token's, completed by the userinfo
   * endpoint's for the same `sub`. Then the account and its memberships.
   */
  async complete(query: string, checks: OidcChecks): Promise<OidcOutcome> {
    const config = await this.discover();
    const currentUrl = new URL(this.redirectUri);
    currentUrl.search = query;
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims()!;
      claims = { ...idClaims };
      if (config.serverMetadata().userinfo_endpoint) {
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...info, ...idClaims };
      }
    } catch (err) {
      throw refusal(err);
    }
    return this.signIn(config.serverMetadata().issuer, claims);
  }

  /** Where signing out sends the browser when the provider advertises `end_session_endpoint`. */
  async endSessionUrl(): Promise<string | undefined> {
    let config: client.Configuration;
    try {
      config = await this.discover();
    } catch {
      return undefined;
    }
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, {
      client_id: this.config.clientId,
      post_logout_redirect_uri: `${this.options.baseUrl}/login`,
    }).href;
  }

  private async signIn(issuer: string, claims: Record<string, unknown>): Promise<OidcOutcome> {
    const subject = claims.sub as string;
    const rawEmail = claims[this.config.emailClaim];
    if (typeof rawEmail !== 'string' || !EMAIL.test(rawEmail.trim()))
      throw new OidcSignInError(
        `Your identity provider sent no email address (claim "${this.config.emailClaim}"), which vulntrack needs. Ask an administrator.`,
        `no usable ${this.config.emailClaim} claim`,
        403,
      );
    if (claims.email_verified === false)
      throw new OidcSignInError(
        'Your email address is not verified at your identity provider. Verify it there, then sign in again.',
        'email_verified is false',
        403,
      );
    const email = normalizeEmail(rawEmail);

    let userId = await this.identities.findUser(issuer, subject);
    if (userId) await this.identities.touch(issuer, subject);
    else {
      const existing = await this.accounts.findUserByEmail(email);
      if (existing) {
        if (await this.identities.hasIdentity(existing.id, issuer))
          throw new OidcSignInError(
            `The account of ${email} here is linked to another identity at your provider. Ask an administrator.`,
            'email of an account linked to another subject',
            403,
          );
        if (!existing.sso_link_allowed) return { kind: 'link_required', link: { issuer, subject, email } };
        await this.db.transaction().execute(async (tx) => {
          await this.identities.link(issuer, subject, existing.id, tx);
          await this.identities.allowLinkByEmail(existing.id, false, tx);
        });
        userId = existing.id;
      } else userId = await this.createUser(issuer, subject, email, claims[this.config.usernameClaim]);
    }
    const row = await this.accounts.findUserById(userId);
    if (!row) throw new AppError('not_found');
    if (row.disabled_at) throw new OidcSignInError(ACCOUNT_DISABLED, 'disabled account', 403);
    await this.syncGroups(row.id, row.email, groupsOfClaim(claims[this.config.groupsClaim]));
    return { kind: 'signed_in', user: webUserOf(row) };
  }

  /**
   * Links a pending identity to the account whose password was just checked, when the identity's
   * email is that account's; false when it is not (nothing linked).
   */
  async linkAfterPassword(userId: string, pending: PendingLink): Promise<boolean> {
    const user = await this.accounts.findUserById(userId);
    if (!user || user.email !== pending.email || (await this.identities.hasIdentity(userId, pending.issuer)))
      return false;
    return this.identities.link(pending.issuer, pending.subject, userId);
  }

  /** A new user for a first sign-in, with no usable password (nobody knows it), linked to the subject. */
  private async createUser(issuer: string, subject: string, email: string, wanted: unknown): Promise<string> {
    const base =
      (typeof wanted === 'string' ? wanted : email.split('@')[0]!)
        .trim()
        .replace(/[^\w.@+-]/g, '_')
        .slice(0, 140) || 'user';
    let username = base;
    for (let n = 2; !USERNAME.test(username) || (await this.accounts.findUserByUsername(username)); n++)
      username = `${base}-${n}`;
    const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
    return this.db.transaction().execute(async (tx) => {
      const created = await this.accounts.createUser({ username, email, passwordHash, isAdmin: false }, tx);
      await this.identities.link(issuer, subject, created.id, tx);
      return created.id;
    });
  }

  /**
   * Sets the user's memberships of the organizations OIDC_GROUP_ROLES names from their groups:
   * joined (a pending invitation of theirs is joined), role changed, or removed, each audited with
   * the actor `sso`. Organizations the mapping does not name are left alone; a named organization
   * that does not exist is skipped (with a warning), as is removing or demoting its last owner.
   */
  private async syncGroups(userId: string, email: string, groups: string[]): Promise<void> {
    const mapping = this.config.groupRoles;
    if (mapping.length === 0) return;
    const wanted = rolesFromGroups(mapping, groups);
    for (const name of mappedOrganizations(mapping)) {
      const org = await this.accounts.findOrganization(name);
      if (!org) {
        this.warn(`OIDC_GROUP_ROLES names the organization "${name}", which does not exist: skipped`);
        continue;
      }
      const role = wanted.get(name);
      const member = await this.accounts.findMemberByEmailOrUser(org.id, email, userId);
      try {
        if (!role) {
          if (member?.date_joined && member.user_id === userId)
            await this.options.members.remove(org.id, member.id, SSO_ACTOR);
        } else if (!member || member.date_joined === null) await this.join(org.id, userId, email, role);
        else if (member.user_id === userId && member.role !== role)
          await this.options.members.changeRole(org.id, member.id, role, SSO_ACTOR);
      } catch (err) {
        // The last owner stays: an organization always keeps one (MemberService refuses).
        if (err instanceof AppError && err.code === 'validation_error')
          this.warn(`single sign-on left a membership of "${name}" as it is: ${err.message}`);
        else throw err;
      }
    }
  }

  /** Joins the user to the organization with `role` (their pending invitation, if any, is used). */
  private async join(organizationId: string, userId: string, email: string, role: Role): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await this.accounts.lockOrganization(organizationId, tx);
      const member = await this.accounts.findMemberByEmailOrUser(organizationId, email, userId, tx);
      if (member?.date_joined) return;
      let id: string;
      const changes: Record<string, { old: unknown; new: unknown }> = {};
      if (member) {
        id = member.id;
        await this.accounts.joinMembership(id, userId, tx);
        if (member.role !== role) {
          await this.accounts.setMemberRole(id, role, tx);
          changes.role = { old: member.role, new: role };
        }
        changes.date_joined = { old: null, new: new Date().toISOString() };
      } else {
        ({ id } = await this.accounts.addMembership(
          { organizationId, userId, email, role, joined: true },
          tx,
        ));
        changes.email = { old: null, new: email };
        changes.role = { old: null, new: role };
      }
      await this.audit.record(
        {
          organizationId,
          actor: SSO_ACTOR,
          action: member ? 'member.join' : 'member.create',
          resourceType: 'member',
          resourceId: id,
          resourceName: email,
          changes,
        },
        tx,
      );
    });
  }
}

/** What went wrong, for the log: an error's class, code and message (openid-client's say no value). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return 'unknown error';
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.name}${typeof code === 'string' ? ` ${code}` : ''}: ${err.message}${cause}`;
}

/** The sentence for a callback openid-client or the provider refused. */
function refusal(err: unknown): OidcSignInError {
  if (err instanceof OidcSignInError) return err;
  const reason = describe(err);
  if (err instanceof client.AuthorizationResponseError) {
    const code = ERROR_CODE.test(err.error) ? err.error : 'unknown';
    if (code === 'access_denied')
      return new OidcSignInError('The sign-in was cancelled at your identity provider.', reason, 403);
    return new OidcSignInError(
      `Your identity provider refused the sign-in (${code}). Try again, or tell an administrator.`,
      reason,
      403,
    );
  }
  if (err instanceof client.ResponseBodyError) {
    const code = ERROR_CODE.test(err.error) ? err.error : 'unknown';
    if (code === 'invalid_grant') return new OidcSignInError(NOT_VERIFIED, reason);
    return new OidcSignInError(
      `Your identity provider refused vulntrack's sign-in request (${code}). Tell an administrator: the client settings may be wrong.`,
      reason,
      502,
    );
  }
  if (err instanceof TypeError || (err instanceof Error && err.name === 'TimeoutError'))
    return new OidcSignInError(UNREACHABLE, reason, 503);
  return new OidcSignInError(NOT_VERIFIED, reason);
}
