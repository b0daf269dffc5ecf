/** A real SMTP server on loopback (smtp-server) that parses what arrives (mailparser). */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerError } from 'smtp-server';

export interface Sink {
  url: string;
  messages: Array<{ from: string; to: string[]; mail: ParsedMail; raw: string }>;
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1; `reject` makes it refuse every message with that reply after DATA. */
export async function startSink(reject?: { code: number; message: string }): Promise<Sink> {
  const messages: Sink['messages'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (reject) {
          const error: SMTPServerError = new Error(reject.message);
          error.responseCode = reject.code;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (mail) => {
            messages.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              mail,
              raw,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
