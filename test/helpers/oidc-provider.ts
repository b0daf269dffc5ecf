/**
 * A real OpenID Connect provider for tests (oidc-provider, certified), on loopback: one client for
 * vulntrack (a secret, PKCE required), accounts whose claims (groups among them) a test changes
 * between sign-ins, and its development login and consent pages (any password is accepted). Plus a
 * node-side user agent that walks those pages with a cookie jar, for tests without a browser, and an
 * impostor issuer whose discovery document names itself while every endpoint is another provider's
 * (so an ID token from that other issuer reaches openid-client's checks).
 */
import http from 'node:http';
import net from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified: boolean;
  preferred_username: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts by subject (`sub`): change one's claims and its next sign-in carries them. */
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function listen(
  handler: http.RequestListener,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts a provider on a free loopback port; `vulntrackUrl` is the client's base URL. */
export async function startOidcProvider(
  vulntrackUrl: string,
  accounts: Record<string, TestAccount>,
  options: { clientSecret?: string } = {},
): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'vulntrack-test';
  const clientSecret = options.clientSecret ?? 'client-secret-Xq7pW2mZ9kLr4Tv8';
  const store = new Map(Object.entries(accounts));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${vulntrackUrl}/auth/oidc/callback`],
        post_logout_redirect_uris: [`${vulntrackUrl}/login`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    async findAccount(_ctx: unknown, sub: string) {
      const account = store.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...account }) };
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'groups'],
    },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
  });
  // Its development keys and pages warn once each on stderr; nothing else is of interest here.
  const server = await listen(provider.callback(), port);
  return { issuer, clientId, clientSecret, accounts: store, stop: server.close };
}

/**
 * A second issuer whose discovery document is `real`'s with its own `issuer`: discovery against it
 * succeeds, but the ID tokens come from `real` (their `iss` is `real`'s).
 */
export async function startImpostorIssuer(real: string): Promise<{ issuer: string; stop(): Promise<void> }> {
  let self = '';
  const server = await listen((req, res) => {
    if (req.url !== '/.well-known/openid-configuration') {
      res.writeHead(404).end();
      return;
    }
    fetch(`${real}/.well-known/openid-configuration`)
      .then((r) => r.json() as Promise<Record<string, unknown>>)
      .then((metadata) => {
        // RFC 9207's `iss` response parameter would give the game away first: not advertised.
        const { authorization_response_iss_parameter_supported: _, ...rest } = metadata;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ...rest, issuer: self }));
      })
      .catch(() => res.writeHead(502).end());
  });
  self = server.url;
  return { issuer: self, stop: server.close };
}

/**
 * A user agent for the provider's side of a sign-in, in node: follows its redirects with a cookie
 * jar, signs in as `sub` on its login page and consents, and returns the URL the provider finally
 * sends the browser to (vulntrack's callback, with its query).
 */
export class ProviderAgent {
  private readonly jar = new Map<string, string>();

  /** Forgets the provider's session (the next sign-in asks for the login again). */
  clear(): void {
    this.jar.clear();
  }

  async signIn(
    authorizationUrl: string,
    sub: string,
    choice: 'consent' | 'cancel' = 'consent',
  ): Promise<URL> {
    let url = authorizationUrl;
    let method = 'GET';
    let body: string | undefined;
    for (let hops = 0; hops < 20; hops++) {
      const response = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
      });
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        const value = pair!.slice(eq + 1);
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.jar.delete(name);
        else this.jar.set(name, value);
      }
      method = 'GET';
      body = undefined;
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, url);
        if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
        url = next.href;
        continue;
      }
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (!action || !prompt)
        throw new Error(`unexpected provider page (${response.status}): ${html.slice(0, 300)}`);
      if (choice === 'cancel') {
        const abort = /href="([^"]+\/abort)"/.exec(html)?.[1];
        if (!abort) throw new Error('no cancel link on the provider page');
        url = new URL(abort.replace(/&amp;/g, '&'), url).href;
        continue;
      }
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      method = 'POST';
      body =
        prompt === 'login'
          ? new URLSearchParams({ prompt, login: sub, password: 'any' }).toString()
          : new URLSearchParams({ prompt }).toString();
    }
    throw new Error('the provider redirected too often');
  }
}
