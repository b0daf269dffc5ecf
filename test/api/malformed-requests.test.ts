/**
 * Requests refused before a route reads them still answer in the API's error envelope: over-long URLs
 * and headers (refused by Node's HTTP parser, so sent over a real socket: inject() has no parser),
 * static-file traversal, and query strings that are not UTF-8.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { buildTestApi, createOrganization, createToken, type TestApi } from '../helpers/api.ts';
import { openTestDatabase } from '../helpers/databases.ts';

/** Sends `request` as written (no URL normalization) and returns the status line and the body. */
function send(port: number, request: string): Promise<{ status: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: head.split('\r\n')[0] ?? '', body: body ? JSON.parse(body) : undefined });
    });
  });
}

const get = (path: string, headers = '') =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`;

describe('malformed requests', () => {
  let database: Database;
  let api: TestApi;
  let port: number;
  let auth: string;

  beforeAll(async () => {
    database = await openTestDatabase('embedded');
    api = await buildTestApi(database);
    const { org, actor } = await createOrganization(api.services, 'malformed');
    auth = (await createToken(api.services, org.id, actor)).header;
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    port = (api.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await api.close();
    await database.close();
  });

  const tooLarge = {
    error: {
      code: 'request_header_too_large',
      message: 'The request URL or headers are too large (at most 16 KiB together).',
    },
  };

  it('answers an over-long URL or header with 431 in the error envelope, on API v2 and v1 paths', async () => {
    for (const path of [
      `/api/v2/cves?search=${'a'.repeat(20_000)}`,
      `/api/cve?search=${'a'.repeat(20_000)}`,
    ]) {
      expect(await send(port, get(path))).toEqual({
        status: 'HTTP/1.1 431 Request Header Fields Too Large',
        body: tooLarge,
      });
    }
    expect(await send(port, get('/api/v2/cves', `X-Padding: ${'b'.repeat(20_000)}\r\n`))).toEqual({
      status: 'HTTP/1.1 431 Request Header Fields Too Large',
      body: tooLarge,
    });
  });

  it('answers a request that is not HTTP with 400 validation_error', async () => {
    expect(await send(port, 'NOT HTTP AT ALL\r\n\r\n')).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: {
        error: {
          code: 'validation_error',
          message: 'Validation error.',
          details: { request: ['the request is not valid HTTP/1.1'] },
        },
      },
    });
  });

  it('answers a static-file traversal with 404 not_found, as any missing file', async () => {
    for (const path of [
      '/api/v2/docs/static/../../../package.json',
      '/api/v2/docs/static/%2e%2e/%2e%2e/package.json',
      '/api/v2/docs/static/no-such-file.js',
    ]) {
      expect(await send(port, get(path)), path).toEqual({
        status: 'HTTP/1.1 404 Not Found',
        body: { error: { code: 'not_found', message: 'Not found.' } },
      });
    }
  });

  it('refuses a query string that is not UTF-8 with 400 naming the parameter, as in a path', async () => {
    const call = (url: string) => api.app.inject({ url, headers: { authorization: auth } });
    for (const [query, name] of [
      ['search=%FF%FE', 'search'],
      ['q=%FF', 'q'],
      ['page=1&search=caf%C3', 'search'],
    ]) {
      const res = await call(`/api/v2/cves?${query}`);
      expect({ status: res.statusCode, body: res.json() }, query).toEqual({
        status: 400,
        body: {
          error: {
            code: 'validation_error',
            message: 'Validation error.',
            details: { [name!]: [`${name} is not valid UTF-8 text once percent-decoded`] },
          },
        },
      });
    }
    // UTF-8 text and a lone percent sign are read as before.
    expect((await call('/api/v2/cves?search=caf%C3%A9')).statusCode).toBe(200);
    expect((await call('/api/v2/cves?search=100%')).statusCode).toBe(200);
  });
});
