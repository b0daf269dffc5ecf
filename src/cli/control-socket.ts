/**
 * The embedded database allows one process. While `serve` holds it, CLI commands are handed to the
 * running server over a Unix socket in the data dir (owner-only), so an operator never has to stop
 * the service to import a file or create a token. Replies stream as JSON lines: progress lines, then
 * the result or an error.
 *
 * Cancelling: `POST /cancel {id}` (the id the client gave its command) aborts the command's signal; a
 * command that takes one (an import) stops and still answers with its result. A client whose
 * connection closes before the result cancels its command the same way, and so does the server when
 * it stops (telling the client first).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { CommandResult } from './command.ts';

export const socketPath = (dataDir: string) => path.join(dataDir, 'control.sock');

export interface ControlRequest {
  command: string;
  args: Record<string, unknown>;
  /** Names the command for `POST /cancel`. */
  id?: string;
}

export type ControlMessage =
  | { type: 'progress'; line: string }
  | { type: 'result'; result: CommandResult }
  | { type: 'error'; message: string; usage: boolean };

export type ControlHandler = (
  request: ControlRequest,
  progress: (line: string) => void,
  signal: AbortSignal,
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
  /** The commands running, each with its abort controller and its reply stream. */
  const running = new Set<{
    id: string | undefined;
    controller: AbortController;
    send(m: ControlMessage): void;
  }>();
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
      if (req.url === '/cancel') {
        const targets = [...running].filter((r) => r.id !== undefined && r.id === request.id);
        for (const r of targets) r.controller.abort(new Error('cancelled by the client'));
        send({ type: 'result', result: { text: '', data: { cancelled: targets.length }, exitCode: 0 } });
        res.end();
        return;
      }
      const entry = { id: request.id, controller: new AbortController(), send };
      running.add(entry);
      // A client gone before its result (killed, or its connection lost) cancels its command.
      res.on('close', () => {
        if (!res.writableFinished) entry.controller.abort(new Error('cancelled: the client disconnected'));
      });
      handle(request, (line) => send({ type: 'progress', line }), entry.controller.signal)
        .then((result) => send({ type: 'result', result }))
        .catch((err: unknown) => send({ type: 'error', ...classify(err) }))
        .finally(() => {
          running.delete(entry);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      // Running commands are cancelled (an import stops at its next batch boundary) and answer as
      // usual; the server closes once they have.
      for (const r of running) {
        r.send({ type: 'progress', line: 'the server is stopping: it cancels this command' });
        r.controller.abort(new Error('cancelled: the server is stopping'));
      }
      server.close(() => resolve());
      fs.rmSync(file, { force: true });
    });
}

/** Asks the server to cancel the command the client named `id`. True when it was running. */
export async function cancelControl(dataDir: string, id: string): Promise<boolean> {
  for await (const message of exchange(dataDir, '/cancel', { command: 'cancel', args: {}, id })) {
    if (message.type === 'result')
      return ((message.result.data as { cancelled?: number }).cancelled ?? 0) > 0;
  }
  return false;
}

/** Sends a command to the server that holds `dataDir` and yields its messages. */
export function sendControl(dataDir: string, request: ControlRequest): AsyncGenerator<ControlMessage> {
  return exchange(dataDir, '/run', request);
}

async function* exchange(
  dataDir: string,
  route: string,
  request: ControlRequest,
): AsyncGenerator<ControlMessage> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request({ socketPath: socketPath(dataDir), path: route, method: 'POST' }, resolve);
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
