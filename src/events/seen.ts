import type { Redis } from 'ioredis';
import { countedCache } from '../held.js';
import type { Logger } from '../logger.js';
import { loopTurns } from './turns.js';

/** How long an event id is remembered: far longer than the upstream's five retries with backoff take. */
export const SEEN_TTL_SECONDS = 24 * 60 * 60;
/** Ids remembered in process; the oldest go first past this. */
export const SEEN_MAX_LOCAL = 50_000;

/** What was answered for a webhook body delivered whole: how many events it had, and how many were ignored. */
export interface DeliveredBody {
  events: number;
  ignored: number;
}

/** Webhook bodies remembered as delivered at most. */
export const DELIVERED_BODIES = 10_000;
/** A body's SHA-256 (base64url, 43 characters), its two counts and the LRU's bookkeeping with a TTL: about 215 bytes measured on Node 24. */
const DELIVERED_ENTRY_BYTES = 256;

/**
 * Webhook bodies delivered whole, by their SHA-256, for as long as event ids are remembered: an upstream
 * retrying a batch it already delivered is answered without parsing it again. Bounded in count and so in
 * bytes, reported on `/metrics` as `delivered_webhooks`.
 */
export function createDeliveredBodies() {
  return countedCache<string, DeliveredBody>({ name: 'delivered_webhooks', max: DELIVERED_BODIES, ttl: SEEN_TTL_SECONDS * 1000, entryBytes: DELIVERED_ENTRY_BYTES });
}

/** Remembers which event ids were delivered, so a retried webhook is not delivered twice. */
export interface SeenIds {
  /** For each id in order: `true` when it is new (and is now remembered), `false` for a repeat. */
  claim(ids: readonly string[]): Promise<boolean[]>;
  /** Forgets ids claimed but not delivered, here and in Redis (best effort), so a retry is new again. */
  release(ids: readonly string[]): Promise<void>;
}

export function createSeenIds(options: { redis?: Redis | null; keyPrefix?: string; logger: Logger }): SeenIds {
  // An entry: an event id (bounded by the webhook's parser) and the LRU's bookkeeping.
  const local = countedCache<string, true>({ name: 'event_ids_seen', max: SEEN_MAX_LOCAL, ttl: SEEN_TTL_SECONDS * 1000, entryBytes: 256 });
  const { redis, logger } = options;
  const prefix = options.keyPrefix ?? 'gateway:events:seen:';

  return {
    async claim(ids) {
      // A webhook may carry thousands of ids: remembered a slice at a time, so the event loop is never held long.
      const turn = loopTurns();
      const fresh: boolean[] = [];
      for (const id of ids) {
        fresh.push(!local.has(id));
        if (fresh.at(-1)) local.set(id, true);
        await turn();
      }
      const toCheck = ids.filter((_, i) => fresh[i]);
      if (!redis || toCheck.length === 0) return fresh;

      // A retry may land on another replica: the shared SET NX decides who delivers it.
      let shared: boolean[];
      try {
        const pipeline = redis.pipeline();
        for (const id of toCheck) pipeline.set(prefix + id, '1', 'EX', SEEN_TTL_SECONDS, 'NX');
        const results = (await pipeline.exec()) ?? [];
        shared = toCheck.map((_, i) => {
          const [error, reply] = results[i] ?? [new Error('no reply'), null];
          if (error) throw error;
          return reply === 'OK';
        });
      } catch (error) {
        // Delivering a rare repeat beats dropping events while Redis is away.
        logger.warn({ err: error }, 'event dedupe: Redis unavailable, deduplicating in process only');
        return fresh;
      }
      let next = 0;
      return fresh.map((isFresh) => (isFresh ? shared[next++]! : false));
    },

    async release(ids) {
      for (const id of ids) local.delete(id);
      if (!redis || ids.length === 0) return;
      try {
        await redis.del(...ids.map((id) => prefix + id));
      } catch (error) {
        // Redis is away: its claims cannot be undone, and a retry landing here is dropped as a repeat.
        logger.warn({ err: error, count: ids.length }, 'event dedupe: could not forget undelivered ids in Redis');
      }
    },
  };
}
