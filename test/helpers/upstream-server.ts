/** A local HTTP server on loopback standing in for an upstream, with a log of the requests it got. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  at: number;
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  status: number;
}

export type Handler = (
  url: URL,
  request: http.IncomingMessage,
) => { status: number; headers?: http.OutgoingHttpHeaders; body?: string | Buffer } | 'hang-up';

export interface UpstreamServer {
  base: string;
  log: LoggedRequest[];
  close(): Promise<void>;
}

export async function startUpstream(handler: Handler): Promise<UpstreamServer> {
  const log: LoggedRequest[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const answer = handler(url, request);
    if (answer === 'hang-up') {
      log.push({ at: Date.now(), method: request.method ?? '', url, headers: request.headers, status: 0 });
      request.socket.destroy();
      return;
    }
    log.push({
      at: Date.now(),
      method: request.method ?? '',
      url,
      headers: request.headers,
      status: answer.status,
    });
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
