/**
 * The embedded database allows one process. While `serve` holds it, CLI commands are handed to the
 * running server over a Unix socket in the data dir (owner-only), so an operator never has to stop
 * the service to import a file or create a token. Replies stream as JSON lines: progress lines, then
 * the result or an error.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { CommandResult } from './service-commands.ts';

export const socketPath = (dataDir: string) => path.join(dataDir, 'control.sock');

export interface ControlRequest {
  command: string;
  args: Record<string, unknown>;
}

export type ControlMessage =
  | { type: 'progress'; line: string }
  | { type: 'result'; result: CommandResult }
  | { type: 'error'; message: string; usage: boolean };

export type ControlHandler = (
  request: ControlRequest,
  progress: (line: string) => void,
) => Promise<CommandResult>;

/** Maps an error thrown by a command to what the CLI prints (usage errors keep exit status 2). */
export type ErrorClassifier = (err: unknown) => { message: string; usage: boolean };

/** Starts the control socket of a running server. Returns the function that stops it. */
export async function startControlSocket(
  dataDir: string,
  handle: ControlHandler,
  classify: ErrorClassifier,
): Promise<() => Promise<void>> {
  const file = socketPath(dataDir);
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const send = (m: ControlMessage) => res.write(`${JSON.stringify(m)}\n`);
      let request: ControlRequest;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ControlRequest;
      } catch {
        send({ type: 'error', message: 'malformed control request', usage: false });
        res.end();
        return;
      }
      handle(request, (line) => send({ type: 'progress', line }))
        .then((result) => send({ type: 'result', result }))
        .catch((err: unknown) => send({ type: 'error', ...classify(err) }))
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
export async function* sendControl(dataDir: string, request: ControlRequest): AsyncGenerator<ControlMessage> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request({ socketPath: socketPath(dataDir), path: '/run', method: 'POST' }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(request));
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
