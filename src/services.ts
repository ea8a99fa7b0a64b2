import { Redis } from 'ioredis';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config, UpstreamUrls } from './config.js';
import type { ServiceDeps } from './deps.js';
import { createPositionsStore, positionTokens, type PositionsStore, type PositionsStoreOptions } from './stores/positions.js';
import { createEventHub, type EventHub } from './events/hub.js';
import { createAssetCache, type AssetCache, type AssetCacheOptions } from './stores/asset-cache.js';
import { createIdempotencyStore, createRedisIdempotencyStore, type IdempotencyStore } from './stores/idempotency.js';
import { createMarketIndex, type MarketIndex, type MarketIndexOptions } from './stores/market-index.js';
import type { Logger } from './logger.js';
import { createUpstreamHealth, type UpstreamHealth } from './stores/upstream-health.js';
import { createUpstream, type UpstreamConfig } from './upstream/index.js';

export type { ServiceDeps } from './deps.js';


/**
 * Everything shared across requests, built once at boot: the upstream clients and the caches of
 * public data. Nothing here holds a caller's credentials.
 */
export interface Services extends ServiceDeps {
  assetCache: AssetCache;
  marketIndex: MarketIndex;
  /** Wallets' positions, shared across requests and callers for `POSITIONS_SHARE_TTL_MS`. */
  positions: PositionsStore;
  idempotency: IdempotencyStore;
  events: EventHub;
  /**
   * The general-purpose Redis client when `REDIS_URL` is set (response cache, idempotency keys, rate
   * limits), else `null`. Commands fail after a second rather than wait for a Redis that is away.
   */
  redis: Redis | null;
  /** Each upstream's breaker state and last success, for readiness and `/metrics`. */
  upstreamHealth: UpstreamHealth;
  /** Warms what should be warm before the first request (the market index). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ServicesOptions {
  config: Readonly<Config>;
  urls: UpstreamUrls;
  logger: Logger;
  /** Overrides of the upstream layer's settings (tests turn off breakers and retries). */
  upstream?: Partial<UpstreamConfig>;
  /** Sizes and TTLs of the shared asset cache (tests use short ones and a fake clock). */
  assetCache?: AssetCacheOptions;
  /** Timings and the clock of the shared market index (tests); the refresh period comes from the config. */
  marketIndex?: Pick<MarketIndexOptions, 'staleAfterMs' | 'minClientRefreshAgeMs' | 'now'>;
  /** The shared positions' clock and size (tests); the time-to-live comes from the config. */
  positions?: Pick<PositionsStoreOptions, 'now' | 'maxWallets'>;
}

export function createServices(options: ServicesOptions): Services {
  const { config, urls, logger } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const calls = new Counter({
    name: 'gateway_upstream_requests_total',
    help: 'Upstream calls by service, route and outcome.',
    labelNames: ['service', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Upstream call latency by service and route.',
    labelNames: ['service', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const upstreamHealth = createUpstreamHealth(registry);
  const upstream = createUpstream({
    alertsUrl: urls.alerts,
    marketsUrl: urls.markets,
    assetsUrl: urls.assets,
    assetsFallbackUrl: config.assetsFallbackUrl,
    serviceClientKey: config.serviceClientKey,
    timeoutMs: config.upstreamTimeoutMs,
    serviceTimeoutMs: { assets: config.assetsTimeoutMs, assetsFallback: config.assetsTimeoutMs },
    onRequest: (info) => {
      const status = info.status === undefined ? 'error' : String(info.status);
      calls.inc({ service: info.service, route: info.route, status });
      durations.observe({ service: info.service, route: info.route }, info.durationMs / 1000);
      upstreamHealth.onRequest(info);
    },
    onBreakerStateChange: (service, state) => {
      upstreamHealth.onBreakerStateChange(service, state);
      logger.warn({ service, state }, 'upstream circuit breaker changed state');
    },
    ...options.upstream,
  });

  const deps: ServiceDeps = { config, logger, upstream, registry };
  const assetCache = createAssetCache(deps, options.assetCache);
  const marketIndex = createMarketIndex(deps, {
    ...options.marketIndex,
    refreshIntervalMs: config.marketIndexRefreshMs,
    onTokens: (tokens) => assetCache.rememberTokens(tokens),
  });
  const positions = createPositionsStore(deps, { ...options.positions, onPositions: (read) => assetCache.rememberTokens(positionTokens(read)) });
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { connectionName: 'gateway', commandTimeout: 1000, maxRetriesPerRequest: 1 })
    : null;
  redis?.on('error', (err: Error) => logger.warn({ err }, 'Redis connection error'));
  // A claim outlives the send it guards (one upstream deadline, retry included); a repeat waits that long too.
  const idempotency = redis
    ? createRedisIdempotencyStore({
        redis,
        logger,
        pendingTtlMs: Math.max(60_000, 2 * config.upstreamTimeoutMs),
        waitMs: Math.max(15_000, config.upstreamTimeoutMs + 1000),
      })
    : createIdempotencyStore();
  const events = createEventHub(deps);

  return {
    ...deps,
    assetCache,
    marketIndex,
    positions,
    idempotency,
    events,
    redis,
    upstreamHealth,
    async start() {
      await marketIndex.start();
    },
    async close() {
      marketIndex.stop();
      await events.close();
      // QUIT lets pending replies arrive; a connection that is not up is dropped at once rather than queued.
      if (redis?.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis?.disconnect();
      await upstream.close();
    },
  };
}
