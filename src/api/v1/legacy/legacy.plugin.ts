/**
 * API v1, legacy array shape (docs/api-v1.md; `API_V1_SHAPE=legacy`): bare arrays of 20, errors
 * `{"message": …}`, HTTP Basic only. Deprecated: no new features.
 *
 * Every `*.routes.ts` file of this folder is a resource and is registered here: a file's export named
 * `routes` is a Fastify plugin taking `{services}`. Adding a resource (the reports) is adding its file.
 */
import fs from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../services/services.ts';
import { setUpV1, type V1Options } from '../v1.setup.ts';

type RoutesModule = { routes: FastifyPluginAsync<{ services: Services }> };

/** The route files of this folder, by name (the order routes are registered in): `.ts` in src/, `.js` in dist/. */
export function legacyRouteFiles(): string[] {
  return fs
    .readdirSync(new URL('.', import.meta.url))
    .filter((f) => /\.routes\.[jt]s$/.test(f))
    .sort();
}

export const legacyV1Routes: FastifyPluginAsync<V1Options> = async (app, options) => {
  await setUpV1(app, options, 'legacy');
  for (const file of legacyRouteFiles()) {
    const module = (await import(new URL(file, import.meta.url).href)) as RoutesModule;
    if (typeof module.routes !== 'function') throw new Error(`${file}: no \`routes\` plugin exported`);
    await app.register(module.routes, { services: options.services });
  }
};
