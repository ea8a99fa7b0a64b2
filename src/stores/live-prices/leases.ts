import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';

/**
 * Which replica reads which asset in an interval. Time is cut into slots of one interval
 * (`floor(now / interval)`, the same on every replica whose clock is synchronised); with Redis, a
 * replica reads an asset in a slot only if it set the slot's lease key first (SET NX), so each asset is
 * read once per slot by the whole cluster, whoever watches it. Without Redis, or while Redis is away,
 * a replica reads everything its own subscribers watch: a second read beats a frozen feed.
 */
export interface Leases {
  /** The ids of `assetIds` this replica reads in `slot`. */
  claim(assetIds: readonly string[], slot: number): Promise<string[]>;
}

const KEY_PREFIX = 'gateway:live-prices:lease';

export function createLeases(redis: Redis | null, intervalMs: number, owner: string, logger: Logger): Leases {
  if (!redis) return { claim: (assetIds) => Promise.resolve([...assetIds]) };
  // A key outlives its slot by one interval, so a replica whose clock lags by less than that cannot claim it again.
  const ttlMs = 2 * intervalMs;
  let warned = false;
  return {
    async claim(assetIds, slot) {
      if (assetIds.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of assetIds) pipeline.set(`${KEY_PREFIX}:${slot}:${id}`, owner, 'PX', ttlMs, 'NX');
      try {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0] as Error;
        warned = false;
        return assetIds.filter((_, i) => results[i]?.[1] === 'OK');
      } catch (err) {
        if (!warned) logger.warn({ err }, 'live prices: Redis is away; this replica reads the assets it watches itself');
        warned = true;
        return [...assetIds];
      }
    },
  };
}
