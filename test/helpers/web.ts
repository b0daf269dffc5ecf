/**
 * A browser-like client for the web UI over `app.inject()`: it keeps cookies, reads each page's CSRF
 * token and sends it with forms, and parses HTML (node-html-parser) for assertions.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApi } from './api.ts';

export interface PageResponse {
  status: number;
  headers: LightMyRequestResponse['headers'];
  /** Where a redirect points (`location`), else undefined. */
  location: string | undefined;
  body: string;
  /** The parsed document. */
  html: HTMLElement;
  /** The text of the page's main content, whitespace collapsed. */
  text: string;
}

let clients = 0;

export class WebClient {
  private readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page seen. */
  csrf = '';

  /** Each client comes from an address of its own (sign-in throttling counts per address). */
  readonly address = `10.0.${Math.floor(++clients / 250)}.${(clients % 250) + 1}`;

  constructor(private readonly app: TestApi['app']) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request('GET', url, undefined, headers);
  }

  /** Posts a form (urlencoded), with the CSRF token of the last page unless `_csrf` is given. */
  async post(
    url: string,
    form: Record<string, string | string[]> = {},
    headers: Record<string, string> = {},
  ) {
    const body = new URLSearchParams();
    const fields = { _csrf: this.csrf, ...form };
    for (const [key, value] of Object.entries(fields)) {
      for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
    }
    return this.request('POST', url, body.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    });
  }

  /**
   * Posts a form with files (multipart/form-data, as a browser sends an `<input type=file>`), with the
   * CSRF token of the last page unless `_csrf` is given.
   */
  async postFiles(
    url: string,
    form: Record<string, string>,
    files: Record<string, { name: string; content: string | Buffer; type?: string }>,
  ) {
    const data = new FormData();
    for (const [key, value] of Object.entries({ _csrf: this.csrf, ...form })) data.append(key, value);
    for (const [key, file] of Object.entries(files))
      data.append(
        key,
        new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)], {
          type: file.type ?? 'application/octet-stream',
        }),
        file.name,
      );
    const encoded = new Request('http://localhost/', { method: 'POST', body: data });
    return this.request('POST', url, Buffer.from(await encoded.arrayBuffer()), {
      'content-type': encoded.headers.get('content-type')!,
    });
  }

  /** Follows a redirect response, or returns the page when it is not one. */
  async follow(response: PageResponse): Promise<PageResponse> {
    let current = response;
    for (let hops = 0; current.location && hops < 5; hops++) current = await this.get(current.location);
    return current;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** Forgets every cookie (another browser). */
  clearCookies(): void {
    this.cookies.clear();
  }

  private async request(
    method: 'GET' | 'POST',
    url: string,
    payload: string | Buffer | undefined,
    headers: Record<string, string>,
  ) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await this.app.inject({
      method,
      url,
      payload,
      remoteAddress: this.address,
      headers: { ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const c of response.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const html = parse(response.body);
    const token = html.querySelector('input[name=_csrf]')?.getAttribute('value');
    if (token) this.csrf = token;
    const location = response.headers.location;
    return {
      status: response.statusCode,
      headers: response.headers,
      location: typeof location === 'string' ? location : undefined,
      body: response.body,
      html,
      text: (html.querySelector('main')?.text ?? html.text).replace(/\s+/g, ' ').trim(),
    };
  }
}

/** A user of the web UI, signed in. */
export async function signedIn(api: TestApi, login: string, password: string): Promise<WebClient> {
  const client = new WebClient(api.app);
  await client.get('/login');
  const response = await client.post('/login', { login, password, next: '/' });
  if (response.status !== 303)
    throw new Error(`sign-in of ${login} failed: ${response.status} ${response.text}`);
  return client;
}
