import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { gatewayError } from '../errors.js';
import { sha256 } from '../hashing.js';
import { countedCache } from '../held.js';
import type { Logger } from '../logger.js';

/** How long a key is remembered, as the alerts service does (docs/upstream.md 1.5). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const DEFAULT_MAX_ENTRIES = 50_000;

export interface IdempotencyScope {
  /** The caller's application key: keys are scoped per API key, never global. Only its hash is kept. */
  apiKey: string;
  idempotencyKey: string;
  /** A hash of the normalised request; the same key with another fingerprint is a conflict. */
  fingerprint: string;
}

export type IdempotentOutcome<T> =
  /** `call` ran now (`replayed: false`) or earlier with the same input (`replayed: true`): its result either way. */
  | { status: 'done'; value: T; replayed: boolean }
  /** The key was used with a different input within the window: nothing ran. */
  | { status: 'conflict' };

/**
 * The gateway's own memory of idempotency keys, so a repeated send is answered without a second
 * upstream call. Only successful results are remembered: a failed call leaves the key free to retry.
 * Two implementations: in process (`createIdempotencyStore`, one replica) and in Redis
 * (`createRedisIdempotencyStore`, shared by every replica when `REDIS_URL` is set). Keys are kept as
 * a hash of (API key, idempotency key), never the API key itself.
 */
export interface IdempotencyStore {
  run<T>(scope: IdempotencyScope, call: () => Promise<T>): Promise<IdempotentOutcome<T>>;
}

export interface IdempotencyStoreOptions {
  /** Keys remembered at most; the least recently used go first. */
  maxEntries?: number;
  ttlMs?: number;
  /** Clock for TTL tracking (tests). */
  now?: () => number;
}

interface Entry {
  fingerprint: string;
  /** Pending while the first call runs, so a concurrent repeat waits for it instead of calling again. */
  result: Promise<unknown>;
}

/**
 * In-process and bounded (LRU with a 24 h TTL); the upstream's own `Idempotency-Key` handling covers
 * what this process forgot (restart, eviction, another replica).
 */
export function createIdempotencyStore(options: IdempotencyStoreOptions = {}): IdempotencyStore {
  // An entry: two hashes and a send's small result (an id and counts), with the LRU's bookkeeping.
  const entries = countedCache<string, Entry>({
    name: 'idempotency_keys',
    entryBytes: 1024,
    max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
    ttl: options.ttlMs ?? IDEMPOTENCY_TTL_MS,
    // Read the clock on every check rather than a cached value: sends are few, exactness is worth it.
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });

  return {
    async run<T>(scope: IdempotencyScope, call: () => Promise<T>): Promise<IdempotentOutcome<T>> {
      const id = entryId(scope.apiKey, scope.idempotencyKey);
      const seen = entries.get(id);
      if (seen) {
        if (seen.fingerprint !== scope.fingerprint) return { status: 'conflict' };
        return { status: 'done', value: (await seen.result) as T, replayed: true };
      }
      const entry: Entry = { fingerprint: scope.fingerprint, result: call() };
      entries.set(id, entry);
      try {
        return { status: 'done', value: (await entry.result) as T, replayed: false };
      } catch (error) {
        if (entries.peek(id) === entry) entries.delete(id);
        throw error;
      }
    },
  };
}

export interface RedisIdempotencyStoreOptions {
  redis: Redis;
  logger: Logger;
  /** How long a result is remembered. Default 24 h, as the alerts service does. */
  ttlMs?: number;
  /**
   * How long a claim stands while its send runs. Longer than any send (upstream deadline and retry);
   * a replica that dies mid-send leaves a claim that expires after this, so the key is free again.
   * Default 60 s.
   */
  pendingTtlMs?: number;
  /** How long a repeat waits for a send another request is running; then it is refused, retryable. Default 15 s. */
  waitMs?: number;
  /** How often a waiting repeat looks at the key again. Default 50 ms. */
  pollMs?: number;
  /** Prefix of the Redis keys. Default `gateway:idempotency:`. */
  keyPrefix?: string;
}

/** What one key holds in Redis (JSON): a claim while the first send runs, then its result. */
type RedisEntry =
  | { state: 'pending'; fingerprint: string; owner: string }
  | { state: 'done'; fingerprint: string; value: unknown };

/** Deletes a key only while it still holds this request's own claim (a compare-and-delete). */
const RELEASE_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * Shared by every replica through Redis. The first request claims the key with `SET NX` (a pending
 * entry with its fingerprint), runs the send and stores its result under the key for 24 h. A repeat,
 * on any replica, sees the claim: with another fingerprint it is a conflict at once; with the same one
 * it polls until the result is there (answered as a replay), or the claim is gone (the first send
 * failed: the repeat claims the key itself), or `waitMs` has passed (refused, retryable). When Redis
 * cannot be reached, a send with a key fails closed (`UPSTREAM_UNAVAILABLE`, retryable) before any
 * upstream call: a second delivery is worse than a refused one. Results must be JSON.
 */
export function createRedisIdempotencyStore(options: RedisIdempotencyStoreOptions): IdempotencyStore {
  const { redis, logger } = options;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const pendingTtlMs = options.pendingTtlMs ?? 60_000;
  const waitMs = options.waitMs ?? 15_000;
  const pollMs = options.pollMs ?? 50;
  const prefix = options.keyPrefix ?? 'gateway:idempotency:';

  /** Redis calls whose failure means the key's state is unknown: nothing may be sent. */
  async function guarded<R>(command: () => Promise<R>): Promise<R> {
    try {
      return await command();
    } catch (err) {
      logger.warn({ err }, 'idempotency: Redis unavailable, refusing a send with a key');
      throw storeUnavailable();
    }
  }

  const read = async (key: string): Promise<RedisEntry | null> => {
    const raw = await guarded(() => redis.get(key));
    return raw === null ? null : (JSON.parse(raw) as RedisEntry);
  };

  return {
    async run<T>(scope: IdempotencyScope, call: () => Promise<T>): Promise<IdempotentOutcome<T>> {
      const key = prefix + entryId(scope.apiKey, scope.idempotencyKey);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const claim = JSON.stringify({ state: 'pending', fingerprint: scope.fingerprint, owner: randomUUID() } satisfies RedisEntry);
        const claimed = await guarded(() => redis.set(key, claim, 'PX', pendingTtlMs, 'NX'));
        if (claimed === 'OK') return { status: 'done', value: await runClaimed(key, claim, scope.fingerprint, call), replayed: false };

        let entry = await read(key);
        while (entry?.state === 'pending' && entry.fingerprint === scope.fingerprint) {
          if (Date.now() >= deadline) throw stillPending();
          await sleep(pollMs);
          entry = await read(key);
        }
        if (entry === null) continue; // the first send failed and freed the key: claim it
        if (entry.fingerprint !== scope.fingerprint) return { status: 'conflict' };
        return { status: 'done', value: (entry as Extract<RedisEntry, { state: 'done' }>).value as T, replayed: true };
      }
    },
  };

  async function runClaimed<T>(key: string, claim: string, fingerprint: string, call: () => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await call();
    } catch (error) {
      // A failure is not remembered (as in process): free the key, if it is still this claim, so a
      // retry can send. Where the upstream did accept it (a deadline), the forwarded key tells it so.
      await redis.eval(RELEASE_SCRIPT, 1, key, claim).catch((err: unknown) => {
        logger.warn({ err }, 'idempotency: could not release a failed claim; it expires on its own');
      });
      throw error;
    }
    try {
      await redis.set(key, JSON.stringify({ state: 'done', fingerprint, value } satisfies RedisEntry), 'PX', ttlMs);
    } catch (err) {
      // Sent, but not remembered: repeats wait on the claim until it expires; the upstream's own
      // Idempotency-Key handling (the key is forwarded) covers a repeat after that.
      logger.error({ err }, 'idempotency: a send succeeded but its result could not be stored');
    }
    return value;
  }
}

function storeUnavailable() {
  return gatewayError(
    'Sends with an idempotencyKey are paused: the gateway cannot reach its idempotency store. Nothing was sent; retry shortly.',
    'UPSTREAM_UNAVAILABLE',
    { upstream: 'alerts', retryable: true },
  );
}

function stillPending() {
  return gatewayError('A send with this idempotencyKey is still in progress; retry shortly to get its result.', 'UPSTREAM_UNAVAILABLE', {
    upstream: 'alerts',
    retryable: true,
  });
}

/** Header values cannot hold a newline, so the separator keeps (api key, idempotency key) pairs apart. */
function entryId(apiKey: string, idempotencyKey: string): string {
  return sha256(`${apiKey}\n${idempotencyKey}`);
}
