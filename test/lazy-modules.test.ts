import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startSimulator, type Simulator } from '../src/simulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each test starts a process that compiles and loads the whole gateway: slow on a busy machine. */
const SPAWN_TIMEOUT = 120_000;

/**
 * Starts the production entry (`src/server.ts`) with `env`, answers one request once it is ready, stops
 * it with SIGTERM and returns the packages it loaded (as the preloaded helper recorded them), with the
 * paths of their modules; `use` runs against the ready gateway's base URL before it is stopped.
 */
async function packagesLoaded(sim: Simulator, env: Record<string, string>, use?: (base: string) => Promise<void>): Promise<Loaded> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/loaded-modules.mjs', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', NODE_ENV: 'production', ALERTS_URL: sim.urls.alerts, MARKETS_URL: sim.urls.markets, ASSETS_URL: sim.urls.assets, CURSOR_SECRET: 'test-cursor-secret', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Gateway ready: GraphQL at (http:\/\/localhost:\d+)\/graphql/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`exited before it was ready:\n${out}${err}`)));
  });
  const answer = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
  expect(answer.status).toBe(200);
  await use?.(base);
  child.kill('SIGTERM');
  await exited;
  const listed = /LOADED MODULES (.*)/.exec(err);
  if (!listed) throw new Error(`no module list:\n${err}`);
  const urls = JSON.parse(listed[1]!) as string[];
  const modules = urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+\/.*)/.exec(url)?.[1] ?? []);
  const builtins = JSON.parse(/NODE MODULES (.*)/.exec(err)?.[1] ?? '[]') as string[];
  return Object.assign(new Set(modules.map((path) => /^(?:@[^/]+\/)?[^/]+/.exec(path)![0])), { modules, builtins });
}

/** Package names, each loaded module as `package/path/in/it.js`, and Node's own modules (`process.moduleLoadList`). */
type Loaded = Set<string> & { modules: string[]; builtins: string[] };

/** One query over graphql-transport-ws, as a browser's graphql-ws client sends it. */
async function queryOverWebSocket(base: string): Promise<unknown> {
  const client = createClient({ url: `${base.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    return await new Promise((resolve, reject) => {
      client.subscribe({ query: '{ __typename }' }, { next: resolve, error: reject, complete: () => {} });
    });
  } finally {
    await client.dispose();
  }
}

describe('modules a gateway loads only when its configuration needs them', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it(
    'without REDIS_URL and tracing: neither ioredis nor OpenTelemetry’s SDK is loaded (only its small API, for log correlation)',
    async () => {
      const loaded = await packagesLoaded(sim, {});
      expect(loaded.has('graphql-yoga')).toBe(true);
      expect([...loaded].filter((name) => name === 'ioredis' || name.startsWith('@ioredis/') || (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api'))).toEqual([]);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'with no WebSocket upgrade and tracing off, neither ws, graphql-ws nor OpenTelemetry’s API as an ES module is loaded; of graphql-scalars, only the two scalars the schema uses',
    async () => {
      const loaded = await packagesLoaded(sim, {});
      expect([...loaded].filter((name) => name === 'ws' || name === 'graphql-ws')).toEqual([]);
      // prom-client's default metrics require the API's CommonJS build; the gateway's own ES imports of it wait for tracing.
      expect(loaded.modules.filter((path) => path.startsWith('@opentelemetry/') && !path.endsWith('.cjs'))).toEqual([]);
      expect(loaded.modules.filter((path) => path.startsWith('graphql-scalars/')).sort()).toEqual([
        'graphql-scalars/esm/error.js',
        'graphql-scalars/esm/scalars/iso-date/DateTime.js',
        'graphql-scalars/esm/scalars/iso-date/formatter.js',
        'graphql-scalars/esm/scalars/iso-date/validator.js',
        'graphql-scalars/esm/scalars/json/JSON.js',
        'graphql-scalars/esm/scalars/json/utils.js',
        'graphql-scalars/package.json',
      ]);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'of graphql-jit, undici and rate-limiter-flexible, only what the gateway calls (no serializer compiler, no fetch, no other limiters), and not Node’s bundled undici',
    async () => {
      const loaded = await packagesLoaded(sim, {});
      expect(loaded.has('graphql-jit')).toBe(true);
      // Its entry is resolved (src/plugins/graphql-jit.ts puts a stand-in at that path), never run: it would load ajv and fast-uri.
      expect([...loaded].filter((name) => name.startsWith('ajv') || name === 'fast-uri')).toEqual([]);
      expect(loaded.modules.filter((path) => path.startsWith('fast-json-stringify/') && path !== 'fast-json-stringify/index.js')).toEqual([]);
      expect(loaded.modules.filter((path) => path === 'undici/index.js' || path.startsWith('undici/lib/web/') || path.startsWith('undici/lib/mock/'))).toEqual([]);
      expect(loaded.modules).toContain('undici/lib/dispatcher/agent.js');
      // Node's bundled undici (its fetch and WebSocket): an ES import of node:http or a read of globalThis.Request loads it.
      expect(loaded.builtins).toContain('NativeModule internal/http');
      expect(loaded.builtins.filter((name) => name.includes('undici'))).toEqual([]);
      expect(loaded.modules.filter((path) => path.startsWith('rate-limiter-flexible/') && !path.startsWith('rate-limiter-flexible/lib/')).filter((path) => path !== 'rate-limiter-flexible/package.json')).toEqual([]);
      expect(loaded.modules.filter((path) => /rate-limiter-flexible\/lib\/RateLimiter(Mongo|MySQL|Postgres|Cluster|Dynamo|Etcd)/.test(path))).toEqual([]);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'the first WebSocket upgrade loads ws and graphql-ws and is answered',
    async () => {
      let answer: unknown;
      const loaded = await packagesLoaded(sim, {}, async (base) => {
        answer = await queryOverWebSocket(base);
      });
      expect(answer).toEqual({ data: { __typename: 'Query' } });
      expect(loaded.has('ws')).toBe(true);
      expect(loaded.has('graphql-ws')).toBe(true);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'with REDIS_URL (a Redis that is away) and an OTLP endpoint: both are loaded, as they are used',
    async () => {
      const loaded = await packagesLoaded(sim, { REDIS_URL: 'redis://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'console', OTEL_TRACES_SAMPLER: 'always_off' });
      expect(loaded.has('ioredis')).toBe(true);
      expect(loaded.has('@opentelemetry/sdk-node')).toBe(true);
    },
    SPAWN_TIMEOUT,
  );
});
