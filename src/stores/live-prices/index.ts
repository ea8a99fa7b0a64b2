import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Config } from '../../config.js';
import { badUserInput, gatewayError, upstreamUnavailable } from '../../errors.js';
import { createRedisListener, type RedisListener } from '../../events/redis-channel.js';
import type { Logger } from '../../logger.js';
import type { PriceTick } from '../../models/index.js';
import type { AssetCache } from '../asset-cache.js';
import { createLeases } from './leases.js';
import { livePriceMetrics } from './metrics.js';
import { createPoller } from './poller.js';
import { parseTicks, tickOf, TICKS_TOPIC } from './tick.js';
import { Watchers } from './watchers.js';

export { LIVE_SUBSCRIBER_QUEUE } from './watchers.js';

/** How long a new subscription waits for this replica to hear the ticks channel before it is refused. */
const LISTEN_WAIT_MS = 5000;
/** Rounds remembered for `recentRounds`. */
const ROUNDS_KEPT = 64;

export interface LivePrices {
  /**
   * The prices of `assetIds` (distinct, valid ids) from now on: a first event with every known one
   * (the latest tick heard, else the asset cache's price), then one event per interval holding those
   * that changed. An unknown id refuses the subscription (`BAD_USER_INPUT`) unless `skipUnknown`, which
   * leaves it out. Refused with `RATE_LIMITED` past the process's live assets.
   */
  subscribe(assetIds: readonly string[], options?: { skipUnknown?: boolean }): Promise<AsyncIterableIterator<PriceTick[]>>;
  /** Resolves once this replica hears the ticks the others publish (at once without Redis); else `UPSTREAM_UNAVAILABLE`. */
  whenListening(): Promise<void>;
  /**
   * This replica's last polling rounds: the slot, the assets whose lease it won, and those of them it
   * read from the assets service (a copy read moments before answers the rest). Shows one read per slot.
   */
  recentRounds(): readonly PollingRound[];
  readonly assets: number;
  readonly subscribers: number;
  /** Whether a polling round runs or is scheduled (not once a round found nothing watched). */
  readonly polling: boolean;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface PollingRound {
  slot: number;
  claimed: readonly string[];
  asked: readonly string[];
}

export interface LivePricesDeps {
  config: Pick<Config, 'livePrices' | 'redisUrl'>;
  assetCache: Pick<AssetCache, 'get'>;
  /** The shared Redis client (leases and publishing); null without `REDIS_URL`. */
  redis: Redis | null;
  logger: Logger;
  registry: Registry;
}

/**
 * The process-wide live price feed: the assets its subscribers watch, refcounted (`watchers.ts`), read
 * once per interval for the whole cluster (`poller.ts`, `leases.ts`), and each read's ticks fanned out
 * to every replica's subscribers through Redis pub/sub (or in process without Redis).
 */
export function createLivePrices(deps: LivePricesDeps): LivePrices {
  const { config, assetCache, redis, logger } = deps;
  const { intervalMs, maxProcessAssets } = config.livePrices;
  const watchers = new Watchers(maxProcessAssets, {
    delivered: (n) => metrics.fanout.delivered(n),
    dropped: () => metrics.fanout.dropped(),
  });
  const metrics = livePriceMetrics(deps.registry, { assets: () => watchers.assetCount, subscribers: () => watchers.subscriberCount });
  const rounds: PollingRound[] = [];

  let listener: RedisListener | null = null;
  let publish = (ticks: PriceTick[]) => watchers.deliver(ticks);
  if (redis && config.redisUrl) {
    listener = createRedisListener<unknown>({
      url: config.redisUrl,
      publisher: redis,
      logger,
      topic: TICKS_TOPIC,
      name: 'gateway-live-prices-sub',
      deliver: (message) => watchers.deliver(parseTicks(message)),
    });
    publish = (ticks) => {
      // Every replica hears it, this one included; when Redis is away, this replica's subscribers still get it.
      redis.publish(TICKS_TOPIC, JSON.stringify({ ticks })).catch((err: unknown) => {
        logger.warn({ err }, 'live prices: Redis PUBLISH failed; ticks delivered on this replica only');
        watchers.deliver(ticks);
      });
    };
  }

  const poller = createPoller({
    intervalMs,
    assetCache,
    leases: createLeases(redis, intervalMs, randomUUID(), logger),
    logger,
    watched: () => watchers.ids(),
    latest: (id) => watchers.latest(id),
    publish: (ticks) => publish(ticks),
    onRound(outcome, slot, read) {
      metrics.round(outcome, read.length);
      rounds.push({ slot, claimed: read, asked: outcome.asked });
      if (rounds.length > ROUNDS_KEPT) rounds.shift();
    },
  });

  /** The first event's tick of each asset: the latest heard, else the asset cache's (fresh copies answer without a call). */
  async function firstTicks(assetIds: readonly string[], skipUnknown: boolean): Promise<PriceTick[]> {
    const ticks = await Promise.all(
      assetIds.map(async (id) => {
        const latest = watchers.latest(id);
        if (latest) return latest;
        const lookup = await assetCache.get(id, 'price').catch(() => {
          throw upstreamUnavailable('assets');
        });
        const tick = tickOf(lookup.asset);
        if (!tick && !skipUnknown) throw badUserInput(`assetIds: "${id}" is not an asset the assets service knows.`, 'assetIds');
        return tick && watchers.remember(tick);
      }),
    );
    return ticks.filter((t): t is PriceTick => t !== null);
  }

  return {
    async subscribe(assetIds, options = {}) {
      watchers.hold(assetIds);
      let first: PriceTick[];
      try {
        first = await firstTicks(assetIds, options.skipUnknown === true);
      } catch (error) {
        watchers.release(assetIds);
        throw error;
      }
      // An id the assets service does not know (a wallet's odd token) is not polled.
      const known = first.length === assetIds.length ? assetIds : first.map((tick) => tick.assetId);
      if (known !== assetIds) {
        const found = new Set(known);
        watchers.release(assetIds.filter((id) => !found.has(id)));
      }
      const queue = watchers.attach(known, first);
      poller.wake();
      return queue;
    },
    async whenListening() {
      if (!listener || listener.verified) return;
      if (!(await listener.whenVerified(LISTEN_WAIT_MS))) {
        throw gatewayError('Live prices are not flowing to this server yet; subscribe again shortly.', 'UPSTREAM_UNAVAILABLE', {
          upstream: 'assets',
          retryable: true,
        });
      }
    },
    recentRounds: () => rounds,
    get assets() {
      return watchers.assetCount;
    },
    get subscribers() {
      return watchers.subscriberCount;
    },
    get polling() {
      return poller.polling;
    },
    async start() {
      await listener?.start();
    },
    async close() {
      poller.close();
      watchers.close();
      await listener?.close();
    },
  };
}
