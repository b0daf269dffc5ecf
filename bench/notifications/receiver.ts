/**
 * The webhook receiver, in a process of its own (a receiver is another machine in reality; here it
 * at least has its own event loop): a node:http server on 127.0.0.1 that reads each body and
 * answers 200 at once. Started with `fork` and the port as argument; says `{ready}` over IPC,
 * answers `count` with the requests and bytes received, and ends when its parent disconnects.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';

export interface ReceiverCounts {
  requests: number;
  bytes: number;
  /** TCP connections accepted. */
  connections: number;
}

function serve(port: number): void {
  const counts: ReceiverCounts = { requests: 0, bytes: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.requests++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  // Node's default keep-alive (5 s), like most receivers (nginx: 75 s). With 1 s, Node's client agent
  // (which closes an idle connection a second before the server would) never reuses one.
  server.on('connection', () => counts.connections++);
  server.listen(port, '127.0.0.1', () => process.send?.({ ready: true }));
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ counts });
  });
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

export interface ReceiverHandle {
  counts(): Promise<ReceiverCounts>;
  stop(): Promise<void>;
}

export function startReceiver(port: number): Promise<ReceiverHandle> {
  const child: ChildProcess = fork(import.meta.filename, [String(port)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code}) before listening`)));
    child.once('message', () => {
      child.removeAllListeners('exit');
      resolve({
        counts: () =>
          new Promise((done) => {
            child.once('message', (m) => done((m as { counts: ReceiverCounts }).counts));
            child.send('count');
          }),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.disconnect();
          }),
      });
    });
  });
}

if (process.argv[1] === import.meta.filename && process.send) serve(Number(process.argv[2]));
