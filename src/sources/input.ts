/**
 * Turns what a user names on the command line (a file, a folder, a .gz, a .zip or a URL) into a
 * sequence of decompressed input files, each opened as a stream when its turn comes, so memory stays
 * bounded whatever the input's size.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type yauzl from 'yauzl';

export class InputError extends Error {
  override name = 'InputError';
}

export interface InputFile {
  /** Where it came from, for messages: `path/to/file.json` or `archive.zip!entry.json`. */
  name: string;
  /** The file name with compression suffixes removed (`x.json.gz` → `x.json`). */
  logicalName: string;
  open(): Promise<Readable>;
}

/** An input file already in memory (a git blob, an API response page). */
export function memoryFile(name: string, logicalName: string, bytes: Buffer): InputFile {
  return { name, logicalName, open: () => Promise.resolve(Readable.from([bytes], { objectMode: false })) };
}

export interface InputOptions {
  /** Folder walks keep only files whose logical name passes this test. */
  accept?: (logicalName: string) => boolean;
}

const stripGz = (name: string) => name.replace(/\.gz$/i, '');

function gunzipIf(name: string, stream: Readable): Readable {
  if (!/\.gz$/i.test(name)) return stream;
  const gunzip = zlib.createGunzip();
  stream.on('error', (err) => gunzip.destroy(err));
  return stream.pipe(gunzip);
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  // Loaded when a zip is opened: every command loads this module (for InputError), and on Node 20
  // an ESM import of this CommonJS package costs each start-up about 35 ms of CPU.
  const { open } = createRequire(import.meta.url)('yauzl') as typeof yauzl;
  return new Promise((resolve, reject) =>
    open(file, { lazyEntries: true, autoClose: false }, (err, zip) =>
      err || !zip
        ? reject(new InputError(`${file} is not a readable zip archive (${err?.message})`))
        : resolve(zip),
    ),
  );
}

async function* zipEntries(file: string, display: string, options: InputOptions): AsyncGenerator<InputFile> {
  const zip = await openZip(file);
  try {
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith('/')) entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', (err: Error) =>
        reject(new InputError(`${display}: broken zip archive (${err.message})`)),
      );
      zip.readEntry();
    });
    entries.sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
    for (const entry of entries) {
      const logical = stripGz(path.basename(entry.fileName));
      if (options.accept && !options.accept(logical)) continue;
      yield {
        name: `${display}!${entry.fileName}`,
        logicalName: logical,
        open: () =>
          new Promise<Readable>((resolve, reject) =>
            zip.openReadStream(entry, (err, stream) =>
              err || !stream
                ? reject(new InputError(`${display}!${entry.fileName}: ${err?.message}`))
                : resolve(gunzipIf(entry.fileName, stream)),
            ),
          ),
      };
    }
  } finally {
    zip.close();
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await fsp.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(full);
    else if (e.isFile()) yield full;
  }
}

async function download(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow' });
  } catch (err) {
    throw new InputError(`Could not fetch ${url}: ${(err as Error).cause ?? (err as Error).message}`);
  }
  if (!response.ok || !response.body) throw new InputError(`Could not fetch ${url}: HTTP ${response.status}`);
  const base = path.basename(new URL(url).pathname) || 'download';
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vulntrack-'));
  const file = path.join(dir, base);
  await pipelineAsync(
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
    fs.createWriteStream(file),
  );
  return file;
}

/** The input files named by `target`, in a stable order. Throws InputError for what cannot be read. */
export async function* inputFiles(target: string, options: InputOptions = {}): AsyncGenerator<InputFile> {
  if (/^https?:\/\//i.test(target)) {
    const file = await download(target);
    try {
      yield* inputFiles(file, options);
    } finally {
      await fsp.rm(path.dirname(file), { recursive: true, force: true });
    }
    return;
  }
  let stat: fs.Stats;
  try {
    stat = await fsp.stat(target);
  } catch {
    throw new InputError(`${target}: no such file or folder`);
  }
  if (stat.isDirectory()) {
    for await (const file of walk(target)) {
      if (/\.zip$/i.test(file)) {
        yield* zipEntries(file, file, options);
        continue;
      }
      const logical = stripGz(path.basename(file));
      if (options.accept && !options.accept(logical)) continue;
      yield { name: file, logicalName: logical, open: () => openFile(file) };
    }
    return;
  }
  try {
    await fsp.access(target, fs.constants.R_OK);
  } catch {
    throw new InputError(`${target}: not readable`);
  }
  if (/\.zip$/i.test(target)) {
    yield* zipEntries(target, target, options);
    return;
  }
  yield { name: target, logicalName: stripGz(path.basename(target)), open: () => openFile(target) };
}

function openFile(file: string): Promise<Readable> {
  return Promise.resolve(gunzipIf(file, fs.createReadStream(file)));
}

/**
 * Chains streams so that an error in any stage (a truncated gzip, malformed JSON) ends the last
 * one's iteration with that error, instead of being lost or crashing the process.
 */
export function chain(first: Readable, ...rest: NodeJS.ReadWriteStream[]): Readable {
  const last = pipeline([first, ...rest] as unknown as [Readable, Readable], () => {
    // errors are delivered to whoever iterates the last stream
  }) as unknown as Readable;
  return last;
}

/** Reads a whole (decompressed) input into a string; for inputs known to be small, such as one record. */
export async function readAll(stream: Readable, limitBytes = 64 * 1024 * 1024): Promise<string> {
  return (await readAllBytes(stream, limitBytes)).toString('utf8');
}

/** Reads a whole (decompressed) input as bytes; for inputs known to be small, such as one record. */
export async function readAllBytes(stream: Readable, limitBytes = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes)
      throw new InputError(`input larger than ${limitBytes} bytes where one record was expected`);
    chunks.push(chunk);
  }
  // One chunk (a record held in memory) is returned as it is, not copied.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Reads the first `bytes` of a stream and returns them with a stream that still yields everything. */
export async function peek(stream: Readable, bytes = 65536): Promise<{ head: string; stream: Readable }> {
  const iterator = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(seen).toString('utf8');
  async function* rest() {
    yield* seen;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, stream: Readable.from(rest(), { objectMode: false }) };
}

/** Lines of a text stream, with their 1-based numbers. */
export async function* lines(stream: Readable): AsyncGenerator<{ line: string; number: number }> {
  let buffer = '';
  let number = 0;
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    buffer += chunk;
    let i: number;
    while ((i = buffer.indexOf('\n')) >= 0) {
      number++;
      yield { line: buffer.slice(0, i), number };
      buffer = buffer.slice(i + 1);
    }
  }
  if (buffer.length) yield { line: buffer, number: number + 1 };
}

/**
 * Lines of a byte stream (split at `\n`, which UTF-8 never uses inside a character), undecoded: a
 * line's text is only decoded when it is needed (`bytes.toString('utf8')` gives what `lines` gives).
 */
export async function* byteLines(stream: Readable): AsyncGenerator<{ bytes: Buffer; number: number }> {
  let rest: Buffer | undefined;
  let number = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buffer: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    let i: number;
    while ((i = buffer.indexOf(10, start)) >= 0) {
      number++;
      yield { bytes: buffer.subarray(start, i), number };
      start = i + 1;
    }
    rest = start < buffer.length ? buffer.subarray(start) : undefined;
  }
  if (rest?.length) yield { bytes: rest, number: number + 1 };
}
