import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { packagesLoaded, queryOverWebSocket } from './helpers/gateway-modules.js';

/** Each test starts a process that compiles and loads the whole gateway: slow on a busy machine. */
const SPAWN_TIMEOUT = 120_000;

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
