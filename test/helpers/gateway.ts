import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createServices, type Services, type ServicesOptions } from '../../src/services.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import type { UpstreamConfig } from '../../src/upstream/index.js';
import { freePort, startRedis, stopProcess } from './processes.js';

export interface TestGatewayOptions {
  /** Overrides of the configuration (the rest is the defaults of an empty environment, with the response cache off and positions not shared). */
  config?: Partial<Config>;
  /** Overrides of the upstream layer (breakers are off unless a test turns them on). */
  upstream?: Partial<UpstreamConfig>;
  /** Sizes and TTLs of the shared asset cache (short TTLs, a fake clock). */
  assetCache?: ServicesOptions['assetCache'];
  /** Timings and the clock of the shared market index. */
  marketIndex?: ServicesOptions['marketIndex'];
  /** The clock and size of the shared positions (turn sharing on with `config.positionsShareTtlMs`). */
  positions?: ServicesOptions['positions'];
  simulator?: SimulatorOptions;
  /** Use this running simulator instead of starting one (it is then not closed). */
  sim?: Simulator;
  /** The gateway's logger (silent unless given). */
  logger?: Logger;
}

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
}

export interface TestGateway {
  sim: Simulator;
  app: App;
  services: Services;
  config: Readonly<Config>;
  /** The demo subscriber's headers (Authorization and X-Service-Client-Key). */
  viewerHeaders: Record<string, string>;
  /** POST a GraphQL request through `yoga.fetch` (in memory). */
  execute<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
    operationName?: string,
  ): Promise<GraphQLResponse<T>>;
  close(): Promise<void>;
}

/**
 * A gateway over an in-process simulator, as the integration tests use it. The market index is warmed
 * first and the simulator's request counts are reset after, so a test's counts are its own.
 */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const sim = options.sim ?? (await startSimulator({ seed: 42, ...options.simulator }));
  // Identities are asked for on every request unless a test turns the memo on: most tests count each
  // request's upstream calls on their own (test/alerts/identity-memo.test.ts tests the memo).
  const config: Readonly<Config> = Object.freeze({ ...loadConfig({ RESPONSE_CACHE: 'off', AUTH_IDENTITY_TTL_MS: '0', POSITIONS_SHARE_TTL_MS: '0' }), ...options.config });
  const logger = options.logger ?? createLogger({ logLevel: 'silent' });
  const services = createServices({ config, urls: sim.urls, logger, upstream: { breaker: false, ...options.upstream }, assetCache: options.assetCache, marketIndex: options.marketIndex, positions: options.positions });
  const app = createApp({ config, services });
  await services.start();
  sim.controls.resetCounts();
  const { demo } = sim.alerts;

  return {
    sim,
    app,
    services,
    config,
    viewerHeaders: { authorization: `Bearer ${demo.token}`, 'x-service-client-key': demo.clientKey },
    async execute(query, variables, headers, operationName) {
      const response = await app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
        body: JSON.stringify({ query, variables, operationName }),
      });
      const body = (await response.json()) as Omit<GraphQLResponse, 'status'>;
      return { status: response.status, ...body } as GraphQLResponse<any>;
    },
    async close() {
      await services.close();
      if (!options.sim) await sim.close();
    },
  };
}

export interface UseTestGatewayOptions extends TestGatewayOptions {
  /** Before each test, reset the simulator's counts and faults (`controls.reset()`). */
  resetControls?: boolean;
  /** Before each test, reset the simulator's alerts state as well (`alerts.reset()`). */
  resetAlerts?: boolean;
}

/**
 * One test gateway for the enclosing file or `describe` block: started before its tests, closed after
 * them, optionally reset before each. Returns it at once, as a stand-in that reaches the started
 * gateway (read it inside hooks and tests only).
 */
export function useTestGateway(options: UseTestGatewayOptions = {}): TestGateway {
  const { resetControls, resetAlerts, ...gatewayOptions } = options;
  let started: TestGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(gatewayOptions);
  });
  afterAll(() => started?.close());
  if (resetControls || resetAlerts) {
    beforeEach(() => {
      if (resetAlerts) started!.sim.alerts.reset();
      if (resetControls) started!.sim.controls.reset();
    });
  }
  return new Proxy({} as TestGateway, {
    get(_target, key) {
      if (!started) throw new Error('the test gateway starts in beforeAll: use it inside hooks and tests');
      return Reflect.get(started, key) as unknown;
    },
  });
}

export interface RedisReplicas {
  sim: Simulator;
  /** Two gateways over `sim`, sharing one Redis (`redisUrl`). */
  a: TestGateway;
  b: TestGateway;
  redisUrl: string;
  /** The test's own connection to that Redis, for reading what the replicas stored; it reconnects after an outage. */
  probe: Redis;
  /** Stops the Redis server (an outage); `startRedis` brings it back on the same port. */
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
}

export interface UseRedisReplicasOptions {
  /** Configuration of both replicas, beside the shared `redisUrl`. */
  config?: Partial<Config>;
  /** How a replica starts (default `startTestGateway`). */
  start?: (options: TestGatewayOptions) => Promise<TestGateway>;
  /** Before each test: empty Redis and reset the simulator's alerts state, counts and faults. */
  resetEach?: boolean;
}

/**
 * A real `redis-server` on a free loopback port, one simulator and two gateway replicas using both,
 * for the enclosing file or `describe` block: started before its tests, stopped after them. Its fields
 * are set once started (read them inside hooks and tests only). Needs `redis-server` (`needsRedis`).
 */
export function useRedisReplicas(options: UseRedisReplicasOptions = {}): RedisReplicas {
  const start = options.start ?? startTestGateway;
  let server: ChildProcess | undefined;
  let port = 0;
  const replicas = {
    async stopRedis() {
      await stopProcess(server);
    },
    async startRedis() {
      server = await startRedis(port);
    },
  } as RedisReplicas;
  beforeAll(async () => {
    port = await freePort();
    await replicas.startRedis();
    replicas.redisUrl = `redis://127.0.0.1:${port}`;
    replicas.probe = new Redis(replicas.redisUrl);
    replicas.probe.on('error', () => {}); // reconnects while a test has the server down
    replicas.sim = await startSimulator({ seed: 42 });
    const config = { ...options.config, redisUrl: replicas.redisUrl };
    replicas.a = await start({ sim: replicas.sim, config });
    replicas.b = await start({ sim: replicas.sim, config });
  });
  afterAll(async () => {
    await replicas.a?.close();
    await replicas.b?.close();
    await replicas.sim?.close();
    replicas.probe?.disconnect();
    await stopProcess(server);
  });
  if (options.resetEach) {
    beforeEach(async () => {
      await replicas.probe.flushall();
      replicas.sim.alerts.reset();
      replicas.sim.controls.reset();
    });
  }
  return replicas;
}

/** Every upstream call the simulator saw, all services together. */
export function totalCalls(gw: { sim: Simulator }): number {
  return Object.values(gw.sim.controls.counts()).reduce((sum, n) => sum + n, 0);
}

/** One of the operations real frontends send (copied verbatim into test/operations/). */
export function operation(name: string): string {
  return readFileSync(new URL(`../operations/${name}.graphql`, import.meta.url), 'utf8');
}
