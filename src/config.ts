/**
 * The gateway's configuration, read once from the environment at boot into a frozen, typed object.
 * Every error names the variable at fault so a bad deployment fails fast and says why.
 */

import { DEFAULT_ADMISSION, type AdmissionLimits } from './admission.js';
import { parseTrustedProxies, type TrustedProxies } from './client-address.js';
import { ConfigError, corsOrigins, httpUrl, integer, onOff, redisUrl, twoValued } from './config-values.js';
import { DEFAULT_INFLIGHT_MAX_BYTES } from './upstream/body.js';
import { DEFAULT_TIMEOUT_MS } from './upstream/transport/timeout.js';

export interface UpstreamUrls {
  alerts: string;
  markets: string;
  assets: string;
}

export interface Config {
  port: number;
  /** Where `/metrics` is served on a listener of its own (`METRICS_PORT`); null: on `port` with the rest. */
  metricsPort: number | null;
  /**
   * `null`: none of the three upstream URLs is set (never in production). The development entry
   * (`npm start`) then starts the embedded simulator; the production entry refuses to start.
   */
  upstreams: UpstreamUrls | null;
  assetsFallbackUrl: string | null;
  serviceClientKey: string | null;
  webhookSecret: string | null;
  /** Key of the cursors' MAC (`CURSOR_SECRET`); null: derived from `webhookSecret`, else kept in Redis (stores/cursor-signer.ts). */
  cursorSecret: string | null;
  /** The key before the last rotation (`CURSOR_SECRET_PREVIOUS`): cursors it signed are still accepted. */
  cursorSecretPrevious: string | null;
  /** `SINGLE_REPLICA=true`: the operator runs one process, so production may sign cursors with a key of its own. */
  singleReplica: boolean;
  redisUrl: string | null;
  production: boolean;
  logLevel: string;
  /** Wallets per positions call (the contract allows up to 25; production upstream accepts 1). */
  positionsBatchSize: number;
  /** Upstream body bytes all calls together may be reading at once (`UPSTREAM_INFLIGHT_MAX_BYTES`). */
  upstreamInflightMaxBytes: number;
  /** How long a wallet's positions (public, on-chain) are shared across requests and callers; 0: not shared. */
  positionsShareTtlMs: number;
  /** Each upstream call's timeout in milliseconds (the operation's deadline may end it sooner). */
  upstreamTimeoutMs: number;
  /** Timeout of assets calls: shorter, since token metadata has fallbacks and a hanging service should not stall pages. */
  assetsTimeoutMs: number;
  /** Seed of the embedded simulator's data. */
  simulatorSeed: number;
  /** Upstream calls one query or mutation may make at most (lists and aliases multiply them). */
  upstreamCallBudget: number;
  /** How often the shared market index re-reads the markets listing in the background, in milliseconds. */
  marketIndexRefreshMs: number;
  /** Largest admitted operation cost, list sizes multiplied in (plugins/query-cost.ts). */
  maxQueryCost: number;
  /** The whole-result response cache (`RESPONSE_CACHE=off` turns it off). */
  responseCache: boolean;
  /** In-process bound of that cache, in bytes of cached JSON (Redis holds it when `redisUrl` is set). */
  responseCacheMaxBytes: number;
  /** How long a cached result may live, by the kind of data it holds (the shortest of its kinds wins). */
  responseCacheTtlMs: Readonly<ResponseCacheTtls>;
  /**
   * How long past its TTL a cached result is still answered, stale (with its `Age`), while one background
   * execution refreshes it (`RESPONSE_CACHE_GRACE_MS`); a client's `Cache-Control: max-age` bounds it. Default 30 000; 0 turns it off.
   */
  responseCacheGraceMs: number;
  /** The same for a caller's own result (`RESPONSE_CACHE_PRIVATE_GRACE_MS`): a revoked token's stale copies end sooner. Default: the private TTL. */
  responseCachePrivateGraceMs: number;
  /** Operations one caller may start per minute, across replicas with Redis; `0` disables the limit. Default 3 000. */
  rateLimitPerMinute: number;
  /** Which peers' `X-Forwarded-For` / `Forwarded` are believed (`TRUSTED_PROXIES`): none by default. */
  trustedProxies: TrustedProxies;
  /** How long an identity the alerts service verified is believed without asking again (`AUTH_IDENTITY_TTL_MS`); 0 asks every time. */
  authIdentityTtlMs: number;
  /** How long the public root fields of a query that also reads a caller's own data keep their answer (`PUBLIC_SUBTREE_HOLD_MS`, src/execution-public.ts); 0 runs them every time. */
  publicSubtreeHoldMs: number;
  /** Browser origins allowed to call the gateway (`CORS_ORIGINS`), credentials included; empty: no cross-origin caller. */
  corsOrigins: readonly string[];
  /** Path of the trusted documents manifest (`PERSISTED_DOCUMENTS`), or null. */
  persistedDocuments: string | null;
  /** Whether documents outside the manifest run (only consulted when a manifest is set). */
  allowArbitraryDocuments: boolean;
  /** Automatic persisted queries. */
  apq: boolean;
  /** Heap the documents registered by APQ may hold, in bytes (`APQ_MAX_BYTES`). */
  apqMaxBytes: number;
  /** Subscriptions (SSE and WebSocket) one caller may hold open at once (`MAX_STREAMS_PER_CLIENT`). */
  maxStreamsPerClient: number;
  /** Subscriptions this process holds open at once, and WebSocket connections alike (`MAX_STREAMS`). */
  maxStreams: number;
  /** GraphQL requests started per turn of the event loop, answered at once, and waiting (`ADMISSION_PER_TURN`, `MAX_INFLIGHT_REQUESTS`, `MAX_QUEUED_REQUESTS`; admission.ts). */
  admission: Readonly<AdmissionLimits>;
  /** The live price feed: `LIVE_PRICES_INTERVAL_MS`, `LIVE_PRICES_MAX_ASSETS` (per subscription), `LIVE_PRICES_MAX_PROCESS_ASSETS`. */
  livePrices: { intervalMs: number; maxAssets: number; maxProcessAssets: number };
  /** OpenTelemetry trace export, asked for by the standard `OTEL_*` variables. */
  tracing: boolean;
  /** An operation's deadline when the client sends no `X-Request-Timeout-Ms`. */
  requestTimeoutDefaultMs: number;
  /** The cap on the deadline a client sends in `X-Request-Timeout-Ms`. */
  requestTimeoutMaxMs: number;
  /** Whether `X-Gateway-Debug: 1` adds the upstream ledger (`DEBUG_LEDGER`; on in development, off in production). */
  debugLedger: boolean;
}

export interface ResponseCacheTtls {
  /** Markets, providers and their histories. */
  markets: number;
  /** Prices, price histories and wallet positions and values (they move with prices). */
  prices: number;
  /** Asset metadata and search. */
  metadata: number;
  /** A caller's own data (subscriber, channels, apps, topics, inbox), cached per credentials. */
  private: number;
}


export { ConfigError } from './config-values.js';

const UPSTREAM_VARS = { alerts: 'ALERTS_URL', markets: 'MARKETS_URL', assets: 'ASSETS_URL' } as const;
/** Calibrated on the real screens (test/plugins/query-cost.test.ts prints their costs): see the README. */
export const DEFAULT_MAX_QUERY_COST = 20_000;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const read = (name: string): string | null => {
    const value = env[name]?.trim();
    return value ? value : null;
  };

  const urls = Object.entries(UPSTREAM_VARS).map(([service, name]) => [service, name, read(name)] as const);
  const missing = urls.filter(([, , value]) => value === null).map(([, name]) => name);
  if (missing.length > 0 && missing.length < urls.length) {
    throw new ConfigError(
      missing.join(', '),
      `set all three of ALERTS_URL, MARKETS_URL and ASSETS_URL, or none to use the embedded simulator; missing: ${missing.join(', ')}`,
    );
  }
  if (missing.length === urls.length && read('NODE_ENV') === 'production') {
    throw new ConfigError(
      missing.join(', '),
      'required with NODE_ENV=production (the embedded simulator is for development only: `npm start`)',
    );
  }
  const upstreams =
    missing.length === 0
      ? (Object.fromEntries(urls.map(([service, name, value]) => [service, httpUrl(name, value!)])) as unknown as UpstreamUrls)
      : null;

  const fallback = read('ASSETS_FALLBACK_URL');
  const logLevel = read('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);

  const production = read('NODE_ENV') === 'production';
  const persistedDocuments = read('PERSISTED_DOCUMENTS');
  const requestTimeoutMaxMs = integer(env, 'REQUEST_TIMEOUT_MAX_MS', 30_000, 100, 600_000);
  const requestTimeoutDefaultMs = integer(env, 'REQUEST_TIMEOUT_DEFAULT_MS', 10_000, 100, 600_000);
  if (requestTimeoutDefaultMs > requestTimeoutMaxMs) {
    throw new ConfigError('REQUEST_TIMEOUT_DEFAULT_MS', `must not exceed REQUEST_TIMEOUT_MAX_MS (${requestTimeoutMaxMs})`);
  }
  const port = integer(env, 'PORT', 4000, 0, 65535);
  const metricsPort = read('METRICS_PORT') === null ? null : integer(env, 'METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== null && metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port})`);
  return Object.freeze({
    port,
    metricsPort,
    upstreams: upstreams ? Object.freeze(upstreams) : null,
    assetsFallbackUrl: fallback ? httpUrl('ASSETS_FALLBACK_URL', fallback) : null,
    serviceClientKey: read('SERVICE_CLIENT_KEY'),
    webhookSecret: read('WEBHOOK_SECRET'),
    cursorSecret: read('CURSOR_SECRET'),
    cursorSecretPrevious: read('CURSOR_SECRET_PREVIOUS'),
    singleReplica: twoValued(read('SINGLE_REPLICA'), 'SINGLE_REPLICA', ['true', 'false'], false),
    redisUrl: redisUrl(read('REDIS_URL')),
    production,
    logLevel,
    positionsBatchSize: integer(env, 'POSITIONS_BATCH_SIZE', 1, 1, 25),
    upstreamInflightMaxBytes: integer(env, 'UPSTREAM_INFLIGHT_MAX_BYTES', DEFAULT_INFLIGHT_MAX_BYTES, 16 * 1024 * 1024, 2 ** 34),
    positionsShareTtlMs: integer(env, 'POSITIONS_SHARE_TTL_MS', 2000, 0, 60_000),
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 50, 120_000),
    assetsTimeoutMs: integer(env, 'ASSETS_TIMEOUT_MS', 1500, 50, 120_000),
    simulatorSeed: integer(env, 'SIMULATOR_SEED', 42, 0, 2 ** 31 - 1),
    upstreamCallBudget: integer(env, 'UPSTREAM_CALL_BUDGET', 500, 10, 100_000),
    marketIndexRefreshMs: integer(env, 'MARKET_INDEX_REFRESH_MS', 60_000, 1_000, 3_600_000),
    maxQueryCost: integer(env, 'MAX_QUERY_COST', DEFAULT_MAX_QUERY_COST, 100, 10_000_000),
    responseCache: onOff(read('RESPONSE_CACHE'), 'RESPONSE_CACHE', true),
    responseCacheMaxBytes: integer(env, 'RESPONSE_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    responseCacheGraceMs: integer(env, 'RESPONSE_CACHE_GRACE_MS', 30_000, 0, 86_400_000),
    responseCachePrivateGraceMs: integer(env, 'RESPONSE_CACHE_PRIVATE_GRACE_MS', integer(env, 'RESPONSE_CACHE_TTL_PRIVATE_MS', 5_000, 0, 86_400_000), 0, 86_400_000),
    responseCacheTtlMs: Object.freeze({
      markets: integer(env, 'RESPONSE_CACHE_TTL_MARKETS_MS', 30_000, 0, 86_400_000),
      prices: integer(env, 'RESPONSE_CACHE_TTL_PRICES_MS', 10_000, 0, 86_400_000),
      metadata: integer(env, 'RESPONSE_CACHE_TTL_METADATA_MS', 300_000, 0, 86_400_000),
      private: integer(env, 'RESPONSE_CACHE_TTL_PRIVATE_MS', 5_000, 0, 86_400_000),
    }),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 3000, 0, 1_000_000),
    trustedProxies: trustedProxies(read('TRUSTED_PROXIES')),
    authIdentityTtlMs: integer(env, 'AUTH_IDENTITY_TTL_MS', 60_000, 0, 3_600_000),
    publicSubtreeHoldMs: integer(env, 'PUBLIC_SUBTREE_HOLD_MS', 1000, 0, 5000),
    corsOrigins: corsOrigins(read('CORS_ORIGINS')),
    persistedDocuments,
    allowArbitraryDocuments: twoValued(read('ALLOW_ARBITRARY_DOCUMENTS'), 'ALLOW_ARBITRARY_DOCUMENTS', ['true', 'false'], !(production && persistedDocuments)),
    apq: onOff(read('APQ'), 'APQ', !production),
    apqMaxBytes: integer(env, 'APQ_MAX_BYTES', 8 * 1024 * 1024, 65_536, 2 ** 32),
    maxStreamsPerClient: integer(env, 'MAX_STREAMS_PER_CLIENT', 100, 1, 1_000_000),
    maxStreams: integer(env, 'MAX_STREAMS', 2000, 1, 1_000_000),
    admission: Object.freeze({
      perTurn: integer(env, 'ADMISSION_PER_TURN', DEFAULT_ADMISSION.perTurn, 1, 10_000),
      maxInFlight: integer(env, 'MAX_INFLIGHT_REQUESTS', DEFAULT_ADMISSION.maxInFlight, 1, 1_000_000),
      maxQueued: integer(env, 'MAX_QUEUED_REQUESTS', DEFAULT_ADMISSION.maxQueued, 1, 1_000_000),
    }),
    // Below 200 ms, a read of every watched asset each interval is more than the assets service can take.
    livePrices: Object.freeze({
      intervalMs: integer(env, 'LIVE_PRICES_INTERVAL_MS', 5000, 200, 600_000),
      maxAssets: integer(env, 'LIVE_PRICES_MAX_ASSETS', 100, 1, 1000),
      maxProcessAssets: integer(env, 'LIVE_PRICES_MAX_PROCESS_ASSETS', 2000, 1, 100_000),
    }),
    // On when an endpoint is set or an exporter named (`console`; `otlp` to the SDK's default localhost:4318).
    tracing:
      Boolean(read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read('OTEL_EXPORTER_OTLP_ENDPOINT') ?? read('OTEL_TRACES_EXPORTER')) &&
      read('OTEL_SDK_DISABLED')?.toLowerCase() !== 'true' &&
      !(read('OTEL_TRACES_EXPORTER') ?? '').split(',').map((name) => name.trim()).includes('none'),
    requestTimeoutDefaultMs,
    requestTimeoutMaxMs,
    debugLedger: onOff(read('DEBUG_LEDGER'), 'DEBUG_LEDGER', !production),
  });
}


function trustedProxies(value: string | null): TrustedProxies {
  try {
    return parseTrustedProxies(value);
  } catch (error) {
    throw new ConfigError('TRUSTED_PROXIES', (error as Error).message);
  }
}
