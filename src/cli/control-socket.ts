/**
 * The embedded database allows one process. While `serve` holds it, CLI commands are handed to the
 * running server over a Unix socket in the data dir (owner-only), so an operator never has to stop
 * the service to import a file. Replies stream as JSON lines: progress, then the result or an error.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ImportProgress, ImportReport } from '../services/import.service.ts';

export const socketPath = (dataDir: string) => path.join(dataDir, 'control.sock');

export interface ImportRequest {
  source: string;
  targets: string[];
}

export type ControlMessage =
  | { type: 'progress'; progress: ImportProgress }
  | { type: 'report'; report: ImportReport }
  | { type: 'error'; message: string; usage?: boolean };

export type ImportHandler = (
  request: ImportRequest,
  progress: (p: ImportProgress) => void,
) => Promise<ImportReport>;

/** Starts the control socket of a running server. Returns the function that stops it. */
export async function startControlSocket(
  dataDir: string,
  handlers: { import: ImportHandler },
): Promise<() => Promise<void>> {
  const file = socketPath(dataDir);
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const send = (m: ControlMessage) => res.write(`${JSON.stringify(m)}\n`);
      let body: ImportRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ImportRequest;
      } catch {
        send({ type: 'error', message: 'malformed control request' });
        res.end();
        return;
      }
      if (req.url !== '/import') {
        send({ type: 'error', message: `unknown control command ${req.url}` });
        res.end();
        return;
      }
      handlers
        .import(body, (progress) => send({ type: 'progress', progress }))
        .then((report) => send({ type: 'report', report }))
        .catch((err: Error) => send({ type: 'error', message: err.message }))
        .finally(() => res.end());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(file, { force: true });
    });
}

/** Sends a command to the server that holds `dataDir` and yields its messages. */
export async function* sendControl(
  dataDir: string,
  command: string,
  body: unknown,
): AsyncGenerator<ControlMessage> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request({ socketPath: socketPath(dataDir), path: command, method: 'POST' }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  let buffer = '';
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) {
    buffer += chunk;
    let i: number;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (line.trim()) yield JSON.parse(line) as ControlMessage;
    }
  }
}
