/**
 * What every scenario stands on: the embedded simulator with a realistic upstream latency, gateways
 * built as in production (breakers on, silent logs) and served on a real port, an HTTP client, and
 * the arithmetic of latency samples.
 *
 * Everything runs in one process: the load generator, the gateway and the simulator share one event
 * loop, so throughput figures are a floor, not what a dedicated gateway process would reach.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { createApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import type { AssetCacheOptions } from '../src/stores/asset-cache.js';
import { createLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import type { Latency } from '../src/simulator/controls.js';
import { SERVICES, startSimulator, type Simulator } from '../src/simulator/index.js';

/** Latency of every upstream call in the benchmark (fixed + uniform jitter). */
export const UPSTREAM_LATENCY = { fixedMs: 40, jitterMs: 10 } as const;
/** The mean of one upstream call under `UPSTREAM_LATENCY`: the unit of "hops". */
export const UPSTREAM_MEAN_MS = UPSTREAM_LATENCY.fixedMs + UPSTREAM_LATENCY.jitterMs / 2;

export async function startBenchSimulator(): Promise<Simulator> {
  const sim = await startSimulator({ seed: 42 });
  setUpstreamLatency(sim, UPSTREAM_LATENCY);
  return sim;
}

/** The same latency on every service; `null` removes it. */
export function setUpstreamLatency(sim: Simulator, latency: Latency | null): void {
  for (const service of SERVICES) sim.controls.setLatency({ service }, latency);
}

/** A gateway on a real port, in front of the simulator. */
export interface BenchGateway {
  /** `http://127.0.0.1:<port>/graphql` */
  url: string;
  services: Services;
  config: Readonly<Config>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Sizes and TTLs of the shared asset cache (defaults: production's). */
  assetCache?: AssetCacheOptions;
  /** The whole-result response cache; off for scenarios that measure the stores below it. Default on. */
  responseCache?: boolean;
}

/**
 * Built like `src/lifecycle.ts` builds it: production's upstream settings (breakers and the one retry on),
 * no logging, no rate limit (one client sends the whole load). The market index is warmed by `start()`
 * and the simulator's counts are reset after it, so the first request measured is the first request
 * a fresh replica would serve.
 */
export async function startGateway(sim: Simulator, options: GatewayOptions = {}): Promise<BenchGateway> {
  const config: Readonly<Config> = Object.freeze({
    ...loadConfig({}),
    logLevel: 'silent',
    rateLimitPerMinute: 0,
    responseCache: options.responseCache ?? true,
  });
  const logger = createLogger(config);
  const services = createServices({ config, urls: sim.urls, logger, assetCache: options.assetCache });
  const app = createApp({ config, services });
  await services.start();

  const server: Server = createServer((req, res) => void app.yoga(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  sim.controls.resetCounts();

  return {
    url: `http://127.0.0.1:${port}/graphql`,
    services,
    config,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The client side
// ---------------------------------------------------------------------------------------------

/** The benchmark's own connection pool: enough sockets that the client never queues. */
export const clientAgent = new Agent({ connections: 128, keepAliveTimeout: 10_000, pipelining: 1 });

export interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface GraphQLResult<T = any> {
  status: number;
  data?: T | null;
  errors?: GraphQLError[];
  /** Client-side latency of the round trip, body read included. */
  ms: number;
}

/** One GraphQL POST over HTTP. */
export async function gql<T = any>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLResult<T>> {
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    dispatcher: clientAgent,
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.body.json()) as { data?: T | null; errors?: GraphQLError[] };
  return { status: response.statusCode, ...body, ms: performance.now() - started };
}

/** One REST GET of an upstream, as a client without the gateway would make it. */
export async function restGet<T = any>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await request(url, { method: 'GET', dispatcher: clientAgent, headers });
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${body.slice(0, 200)}`);
  return JSON.parse(body) as T;
}

/** An operation real frontends send (test/operations/<name>.graphql), unchanged. */
export function operation(name: string): string {
  return readFileSync(new URL(`../test/operations/${name}.graphql`, import.meta.url), 'utf8');
}

/** The demo subscriber's headers, as a signed-in app sends them. */
export function viewerHeaders(sim: Simulator): Record<string, string> {
  const { demo } = sim.alerts;
  return { authorization: `Bearer ${demo.token}`, 'x-service-client-key': demo.clientKey };
}

/** Fails loudly when a query the benchmark relies on does not answer cleanly: timing a broken query measures nothing. */
export function assertClean(name: string, result: GraphQLResult): void {
  if (result.status !== 200 || result.errors?.length || !result.data) {
    const detail = JSON.stringify(result.errors ?? result.data ?? null).slice(0, 500);
    throw new Error(`${name} did not answer cleanly (HTTP ${result.status}): ${detail}`);
  }
}

export * from './numbers.js';
