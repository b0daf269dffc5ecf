/** Real receivers on loopback for the channel tests: an HTTP server that records what arrived. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers; 'hang' never answers (the socket stays open until close()). */
export type Answer = { status: number; body?: string; headers?: http.OutgoingHttpHeaders } | 'hang';

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  /** Closes the open connections (idle keep-alive ones included), and keeps listening. */
  closeConnections(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (request: ReceivedRequest) => Answer = () => ({ status: 200, body: 'ok' }),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const reply = answer(received);
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
    });
  });
  const receiver: Receiver = {
    base: '',
    port: 0,
    requests,
    connections: 0,
    closeConnections: async () => {
      server.closeAllConnections();
      // Let the client see the connection end before the next request.
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => (receiver.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.base = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
