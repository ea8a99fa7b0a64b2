import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import { createClientAddress } from './client-address.js';
import { redisClient } from './redis-client.js';
import { createVerifiedCallers, type VerifiedCallers } from './stores/verified-callers.js';
import { shareRevocations } from './stores/revocations.js';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { tallyCounter, tallyHistogram } from './metrics.js';
import { registerHeldGauges } from './held.js';
import type { Config, UpstreamUrls } from './config.js';
import { createPositionsStore, positionTokens, type PositionsStore, type PositionsStoreOptions } from './stores/positions.js';
import { createEventHub, type EventHub } from './events/hub.js';
import { createLivePrices, type LivePrices } from './stores/live-prices/index.js';
import { openWalletValue } from './stores/live-prices/wallet-value.js';
import type { WalletValueEvent } from './models/index.js';
import { createAssetCache, type AssetCache, type AssetCacheOptions } from './stores/asset-cache.js';
import { createIdempotencyStore, createRedisIdempotencyStore, type IdempotencyStore } from './stores/idempotency.js';
import { createMarketIndex, type MarketIndex, type MarketIndexOptions } from './stores/market-index.js';
import type { Logger } from './logger.js';
import { createUpstreamHealth, type UpstreamHealth } from './stores/upstream-health.js';
import { createUpstream, type Upstream, type UpstreamConfig } from './upstream/index.js';
import { recordCalls } from './upstream/call-metrics.js';
import { CursorSigner, cursorKeys } from './stores/cursor-signer.js';
import { shareCursorKey, type CursorKeyShare } from './stores/cursor-keys.js';

/**
 * Everything shared across requests, built once at boot: the upstream clients and the caches of
 * public data. Nothing here holds a caller's credentials.
 */
export interface Services {
  config: Readonly<Config>;
  logger: Logger;
  upstream: Upstream;
  /** Where every metric of the gateway is registered (`/metrics`). */
  registry: Registry;
  assetCache: AssetCache;
  marketIndex: MarketIndex;
  /** Wallets' positions, shared across requests and callers for `POSITIONS_SHARE_TTL_MS`. */
  positions: PositionsStore;
  idempotency: IdempotencyStore;
  events: EventHub;
  /** The live price feed behind `Subscription.prices` and `walletValue`: one read per watched asset per interval for the cluster. */
  livePrices: LivePrices;
  /** A wallet's value as `Subscription.walletValue` streams it, once this replica hears the live prices. */
  walletValue(address: string): Promise<AsyncIterableIterator<WalletValueEvent>>;
  /**
   * The general-purpose Redis client when `REDIS_URL` is set (response cache, idempotency keys, rate
   * limits), else `null`. Commands fail after a second rather than wait for a Redis that is away.
   */
  redis: Redis | null;
  /** Each upstream's breaker state and last success, for readiness and `/metrics`. */
  upstreamHealth: UpstreamHealth;
  /** Identities (and app keys) the alerts service verified lately, by hash of the credentials. */
  verifiedCallers: VerifiedCallers;
  /** Signs and checks connection cursors with the keys every replica shares. */
  cursors: CursorSigner;
  /** The client's address from a node request, as the trusted proxies report it (`TRUSTED_PROXIES`). */
  clientAddress: (req: IncomingMessage | undefined) => string | null;
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

  const calls = tallyCounter({
    name: 'gateway_upstream_requests_total',
    help: 'Upstream calls by service, route and outcome.',
    labelNames: ['service', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = tallyHistogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Upstream call latency by service and route.',
    labelNames: ['service', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const signing = cursorKeys(config);
  const cursors = new CursorSigner(signing);
  if (signing.source === 'per-process') {
    logger.warn('CURSOR_SECRET is not set: cursors are signed with a key of this process (SINGLE_REPLICA) and refused by any other replica');
  }
  let cursorShare: CursorKeyShare | undefined;

  const upstreamHealth = createUpstreamHealth(registry);
  const recordCall = recordCalls({ calls, durations });
  const upstream = createUpstream({
    alertsUrl: urls.alerts,
    marketsUrl: urls.markets,
    assetsUrl: urls.assets,
    assetsFallbackUrl: config.assetsFallbackUrl,
    serviceClientKey: config.serviceClientKey,
    timeoutMs: config.upstreamTimeoutMs,
    inFlightMaxBytes: config.upstreamInflightMaxBytes,
    serviceTimeoutMs: { assets: config.assetsTimeoutMs, assetsFallback: config.assetsTimeoutMs },
    onRequest: (info) => {
      recordCall(info);
      upstreamHealth.onRequest(info);
    },
    onBreakerStateChange: (service, state) => {
      upstreamHealth.onBreakerStateChange(service, state);
      logger.warn({ service, state }, 'upstream circuit breaker changed state');
    },
    ...options.upstream,
  });

  registerHeldGauges(registry);
  new Gauge({
    name: 'gateway_upstream_inflight_bytes',
    help: 'Upstream body bytes being read now, all calls together (UPSTREAM_INFLIGHT_MAX_BYTES bounds them).',
    registers: [registry],
    collect() {
      this.set(upstream.inFlight.used);
    },
  });

  // Each store is given what it uses, no more.
  const assetCache = createAssetCache({ upstream, logger, registry }, options.assetCache);
  const marketIndex = createMarketIndex({ upstream, logger, registry }, {
    ...options.marketIndex,
    refreshIntervalMs: config.marketIndexRefreshMs,
    onTokens: (tokens) => assetCache.rememberTokens(tokens),
  });
  const positions = createPositionsStore({ upstream, config, registry }, { ...options.positions, onPositions: (read) => assetCache.rememberTokens(positionTokens(read)), indexed: (marketId) => marketIndex.held(marketId) });
  const redis = config.redisUrl
    ? redisClient(config.redisUrl, {
        connectionName: 'gateway',
        commandTimeout: 1000,
        maxRetriesPerRequest: 1,
        // While Redis is away, a command fails at once rather than waiting in a queue for its return:
        // reads (the response cache, rate-limit counts) carry on without it, sends with a key are refused.
        enableOfflineQueue: false,
      })
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
  const events = createEventHub({ config, logger, registry });
  const livePrices = createLivePrices({ config, assetCache, redis, logger, registry });
  const localCallers = createVerifiedCallers({ ttlMs: config.authIdentityTtlMs });
  // With Redis, a token refused on one replica is forgotten on every one at once (stores/revocations.ts).
  const revocations = redis && config.redisUrl ? shareRevocations(localCallers, { url: config.redisUrl, publisher: redis, logger, ttlMs: config.authIdentityTtlMs }) : null;

  return {
    config,
    logger,
    upstream,
    registry,
    assetCache,
    marketIndex,
    positions,
    idempotency,
    events,
    livePrices,
    async walletValue(address) {
      await livePrices.whenListening();
      return openWalletValue({ livePrices, positions, maxAssets: config.livePrices.maxAssets }, address);
    },
    redis,
    upstreamHealth,
    verifiedCallers: revocations?.verifiedCallers ?? localCallers,
    cursors,
    clientAddress: createClientAddress(config.trustedProxies),
    async start() {
      // Subscribes to the events channel in the background, retrying while Redis is away: readiness is
      // 503 and new streams wait until this replica hears it (plugins/readiness.ts, events/hub.ts).
      void events.start().catch((err: unknown) => logger.error({ err }, 'events: could not start listening'));
      void livePrices.start().catch((err: unknown) => logger.error({ err }, 'live prices: could not start listening'));
      void revocations?.start().catch((err: unknown) => logger.error({ err }, 'revocations: could not start listening'));
      cursorShare = redis ? shareCursorKey({ redis, signer: cursors, keys: signing, logger }) : undefined;
      // Not ready before the deployment's cursor key is known: a key of its own would sign cursors other replicas refuse.
      await Promise.all([marketIndex.start(), cursorShare?.ready]);
    },
    async close() {
      marketIndex.stop();
      cursorShare?.stop();
      await events.close();
      await livePrices.close();
      await revocations?.close();
      // QUIT lets pending replies arrive; a connection that is not up is dropped at once rather than queued.
      if (redis?.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis?.disconnect();
      await upstream.close();
    },
  };
}
