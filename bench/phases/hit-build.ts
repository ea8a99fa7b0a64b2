/**
 * One build's response cache and fast path for hits, in process, for the in-process hit benches
 * (hit-loop.ts, held-answers.ts): the real store, plugin reader and hit path of the build in `dist`
 * (or a copy of it), over one schema (Pothos refuses a second copy of its plugins in one process).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Plugin = typeof import('../../src/response-cache/plugin.js');
type Store = typeof import('../../src/response-cache/store.js');
type Hits = typeof import('../../src/fast-path/hits.js');
type Schema = typeof import('../../src/schema/index.js');

export const CLIENT_KEY = 'client-key-0123456789';

const loadBuild = async <T>(build: string, file: string) => (await import(pathToFileURL(resolve(build, file)).href)) as T;

/** The schema of `build`, for every build of the process. */
export async function schemaOf(build: string): Promise<Schema['schema']> {
  return (await loadBuild<Schema>(build, 'schema/index.js')).schema;
}

/** The build's store (in process, bounded by `maxBytes`), its cache's reader over `schema` (every TTL an hour) and its hit path. */
export async function hitBuild(build: string, schema: Schema['schema'], maxBytes: number) {
  const { createGatewayResponseCache } = await loadBuild<Plugin>(build, 'response-cache/plugin.js');
  const { createResponseCacheStore } = await loadBuild<Store>(build, 'response-cache/store.js');
  const { createHitPath } = await loadBuild<Hits>(build, 'fast-path/hits.js');
  const logger = { warn: () => undefined } as unknown as Parameters<Store['createResponseCacheStore']>[0]['logger'];
  const hour = 3_600_000;
  const store = createResponseCacheStore({ logger, redis: null, maxBytes, ownerIndexTtlMs: hour });
  const cache = createGatewayResponseCache({ store, ttlMs: { markets: hour, prices: hour, metadata: hour, private: hour } });
  (cache.plugin as { onSchemaChange: (payload: { schema: unknown }) => void }).onSchemaChange({ schema });
  // An older build's hit path has no `fromBytes`.
  return { store, reader: cache.reader, hit: createHitPath({ reader: cache.reader, debugLedger: false }) };
}
