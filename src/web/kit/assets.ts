/**
 * The web UI's static files, served by us (no CDN): read once at start, fingerprinted by content
 * (`/assets/app-3f9c2a1b0d.css`, cached for a year) and kept gzip- and brotli-compressed in memory,
 * so a request costs a map lookup. htmx comes from its npm package.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import type { FastifyPluginAsync } from 'fastify';

export interface Asset {
  /** The fingerprinted URL pages link to. */
  url: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where the asset files are: `web/assets/` in src/, or in src/ when running the compiled dist/. */
function assetDir(): string {
  const web = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const inTree = path.join(web, 'assets');
  if (fs.existsSync(inTree)) return inTree;
  return path.join(web, '..', '..', 'src', 'web', 'assets');
}

function load(name: string, file: string): Asset {
  const body = fs.readFileSync(file);
  const ext = path.extname(name);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return {
    url: `/assets/${path.basename(name, ext)}-${hash}${ext}`,
    type: TYPES[ext] ?? 'application/octet-stream',
    body,
    gzip: zlib.gzipSync(body, { level: 9 }),
    brotli: zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  };
}

export type AssetName =
  'app.css' | 'app.js' | 'htmx.js' | 'query-builder.js' | 'automation-builder.js' | 'tracker.js' | 'icon.svg';

/** Every asset by its logical name. */
export function loadAssets(): Record<AssetName, Asset> {
  const dir = assetDir();
  const require = createRequire(import.meta.url);
  return {
    'app.css': load('app.css', path.join(dir, 'app.css')),
    'app.js': load('app.js', path.join(dir, 'app.js')),
    'query-builder.js': load('query-builder.js', path.join(dir, 'query-builder.js')),
    'automation-builder.js': load('automation-builder.js', path.join(dir, 'automation-builder.js')),
    'tracker.js': load('tracker.js', path.join(dir, 'tracker.js')),
    'icon.svg': load('icon.svg', path.join(dir, 'icon.svg')),
    'htmx.js': load('htmx.js', require.resolve('htmx.org/dist/htmx.min.js')),
  };
}

let loaded: Record<AssetName, Asset> | undefined;

/** The assets, read once per process. */
export const loadAssetsOnce = (): Record<AssetName, Asset> => (loaded ??= loadAssets());

/** Serves the assets at their fingerprinted URLs, compressed as the client accepts. */
export const assetRoutes: FastifyPluginAsync<{ assets: Record<string, Asset> }> = async (app, { assets }) => {
  const byUrl = new Map(Object.values(assets).map((a) => [a.url, a]));
  app.get('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = byUrl.get(request.url.split('?')[0]!);
    if (!asset) return reply.status(404).type('text/plain; charset=utf-8').send('Not found.');
    const accept = String(request.headers['accept-encoding'] ?? '');
    void reply
      .type(asset.type)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding')
      .header('X-Content-Type-Options', 'nosniff');
    if (/\bbr\b/.test(accept)) return reply.header('Content-Encoding', 'br').send(asset.brotli);
    if (/\bgzip\b/.test(accept)) return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  });
};
