import type { ExecutionResult } from 'graphql';
import { BrokenCircuitError, circuitBreaker, ConsecutiveBreaker, handleAll } from 'cockatiel';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { holding } from '../held.js';
import type { Logger } from '../logger.js';

/**
 * Where whole query results are kept: in process (bounded by the bytes of their JSON), or with
 * `REDIS_URL` in Redis, shared by every replica. A key is `<owner>.<hash>`: `public` for results
 * any caller may share, else a hash of the caller's credentials, under which `invalidateOwner`
 * drops everything cached for that caller at once (after one of their mutations).
 *
 * The store fails open: a Redis error is logged and reads as a miss, it never fails a query.
 */
export interface ResponseCacheStore {
  /** The result held under `key` in its held form (`heldResult`), or undefined. */
  get(key: string): ExecutionResult | undefined | Promise<ExecutionResult | undefined>;
  /** Holds `result` for `ttlMs`, and for the grace period after it. Never rejects: the cache does not wait for a write. */
  set(key: string, result: ExecutionResult, ttlMs: number): void | Promise<void>;
  /** Drops every result cached for this owner (the credentials hash of `ownerOf(key)`). */
  invalidateOwner(owner: string): Promise<void>;
}

export const PUBLIC_OWNER = 'public';

/** When a held result was stored and for how long it is fresh; past that it may be served stale for the grace period. */
export interface Freshness {
  storedAt: number;
  ttlMs: number;
}

/** What a store knows of a result it handed out: its freshness, and the bytes of its answer (the only copy of it held). */
export interface Held extends Freshness {
  readonly bytes: Buffer;
}

const heldOf = new WeakMap<object, Held>();

/** The freshness and UTF-8 bytes of a result the store handed out, in one lookup (undefined for one it did not). */
export function heldAnswer(result: ExecutionResult): Held | undefined {
  return heldOf.get(result);
}

const bodies = new WeakMap<object, string>();

/**
 * The JSON body a cached result is answered with (Yoga leaves out `extensions.http`, where the
 * cache keeps its `ETag` and `Last-Modified`): an executed result's is serialized once per result
 * object; a held result's is read from its bytes on each call (the pipeline's hits only: the bytes
 * are the one copy an entry holds).
 */
export function resultBody(result: ExecutionResult): string {
  const held = heldOf.get(result);
  if (held) return held.bytes.toString('utf8');
  let body = bodies.get(result);
  if (body === undefined) {
    const { http: _http, ...extensions } = (result.extensions ?? {}) as Record<string, unknown>;
    body = JSON.stringify(Object.keys(extensions).length > 0 ? { ...result, extensions } : { ...result, extensions: undefined });
    bodies.set(result, body);
  }
  return body;
}

/**
 * What a store keeps of a result in Redis: the JSON it is answered with, the HTTP metadata Yoga sends
 * as headers (`extensions.http`: `ETag`, `Last-Modified`), and when it was stored for how long. Not the
 * executed object graph: it takes several times the heap of its JSON, and a hit is answered from its
 * bytes (a Redis read parses no result, and serializes none again). In process the same is held with
 * the body as bytes only.
 */
interface Stored {
  body: string;
  http?: unknown;
  storedAt: number;
  ttlMs: number;
}

function storedForm(result: ExecutionResult, ttlMs: number): Stored {
  const http = (result.extensions as { http?: unknown } | undefined)?.http;
  return { body: resultBody(result), ...(http === undefined ? {} : { http }), storedAt: Date.now(), ttlMs };
}

/**
 * The result a store hands out: only the HTTP metadata, its answer's bytes and its freshness kept
 * beside it. An entry held in process gets bytes of its own (`kept`): a pooled slice would keep the
 * whole pool's 8 KiB alive as long as the entry.
 */
function heldResult(stored: Stored, kept: boolean): ExecutionResult {
  const held: ExecutionResult = stored.http === undefined ? {} : { extensions: { http: stored.http } };
  const bytes = kept ? Buffer.allocUnsafeSlow(Buffer.byteLength(stored.body)) : Buffer.from(stored.body);
  if (kept) bytes.write(stored.body);
  heldOf.set(held, { storedAt: stored.storedAt, ttlMs: stored.ttlMs, bytes });
  return held;
}

/** The owner part of a cache key: `public` or a caller's credentials hash. */
export function ownerOf(key: string): string {
  const dot = key.indexOf('.');
  return dot > 0 ? key.slice(0, dot) : PUBLIC_OWNER;
}

export interface ResponseCacheStoreOptions {
  logger: Logger;
  /** With a connection the results live in Redis; without, in this process. */
  redis: Redis | null;
  /** In-process bound, in bytes of cached JSON. */
  maxBytes: number;
  /** The longest TTL a caller's own result gets: how long Redis keeps the index of an owner's keys. */
  ownerIndexTtlMs: number;
  /** How long past its TTL a public result is still held, to be served stale while it is refreshed. Default 0. */
  graceMs?: number;
  /** The same for a caller's own result (`RESPONSE_CACHE_PRIVATE_GRACE_MS`). Default 0. */
  privateGraceMs?: number;
}

/** How long past its TTL the entry under `key` is held: a caller's own entry has a grace of its own. */
function graceOf(key: string, { graceMs = 0, privateGraceMs = 0 }: ResponseCacheStoreOptions): number {
  return ownerOf(key) === PUBLIC_OWNER ? graceMs : privateGraceMs;
}

export function createResponseCacheStore(options: ResponseCacheStoreOptions): ResponseCacheStore {
  return options.redis ? redisStore(options.redis, options) : memoryStore(options);
}

function memoryStore(options: ResponseCacheStoreOptions): ResponseCacheStore {
  const { maxBytes } = options;
  const byOwner = new Map<string, Set<string>>();
  const results = new LRUCache<string, ExecutionResult>({
    maxSize: maxBytes,
    // The bytes a result is answered as: what it costs to hold, near enough.
    sizeCalculation: (result) => Math.max(1, heldAnswer(result)?.bytes.length ?? 0),
    ttlAutopurge: false,
    dispose: (_result, key) => {
      const owner = ownerOf(key);
      const keys = byOwner.get(owner);
      keys?.delete(key);
      if (keys?.size === 0) byOwner.delete(owner);
    },
  });
  holding(results, { name: 'response_cache', bytes: () => results.calculatedSize, maxBytes });

  return {
    get: (key) => results.get(key),
    set(key, result, ttlMs) {
      // A result larger than the whole bound is refused by the LRU; nothing to index then.
      results.set(key, heldResult(storedForm(result, ttlMs), true), { ttl: ttlMs + graceOf(key, options) });
      const owner = ownerOf(key);
      if (owner === PUBLIC_OWNER || !results.has(key)) return;
      let keys = byOwner.get(owner);
      if (!keys) byOwner.set(owner, (keys = new Set()));
      keys.add(key);
    },
    invalidateOwner(owner) {
      for (const key of [...(byOwner.get(owner) ?? [])]) results.delete(key);
      return Promise.resolve();
    },
  };
}

/**
 * Keys are prefixed so the cache shares a Redis with other stores; an owner's keys are listed in a set that expires.
 * `rc2`: a value is the stored form (the answer's JSON, its HTTP metadata, when it was stored and its TTL; `rc` held the bare result): replicas of
 * the two formats never read each other's values during a rolling update.
 */
const PREFIX = 'gateway:rc2:';

/** Redis failures in a row after which the cache stops asking Redis, for `REDIS_BREAKER_HALF_OPEN_MS`. */
const REDIS_BREAKER_FAILURES = 3;
const REDIS_BREAKER_HALF_OPEN_MS = 5_000;

function redisStore(redis: Redis, options: ResponseCacheStoreOptions): ResponseCacheStore {
  const { logger, ownerIndexTtlMs } = options;
  // While Redis fails (away, or answering nothing until each command's timeout), reads and writes
  // skip it at once: a miss, not a wait. It is asked again after the half-open delay.
  const breaker = circuitBreaker(handleAll, { halfOpenAfter: REDIS_BREAKER_HALF_OPEN_MS, breaker: new ConsecutiveBreaker(REDIS_BREAKER_FAILURES) });
  const failed = (what: string) => (err: unknown) => {
    if (!(err instanceof BrokenCircuitError)) logger.warn({ err }, `response cache: Redis ${what} failed`);
    return undefined;
  };
  const ownerIndex = (owner: string) => `${PREFIX}owner:${owner}`;

  return {
    get: (key) =>
      breaker.execute(() => redis.get(PREFIX + key)).then((json) => {
        if (json === null) return undefined;
        const stored = JSON.parse(json) as Partial<Stored>;
        // Only values of this format (the prefix names it) are answered; anything else is a miss.
        if (typeof stored.body !== 'string' || typeof stored.storedAt !== 'number' || typeof stored.ttlMs !== 'number') return undefined;
        return heldResult(stored as Stored, false);
      }, failed('GET')),
    set(key, result, ttlMs) {
      const json = JSON.stringify(storedForm(result, ttlMs));
      const owner = ownerOf(key);
      const multi = redis.multi();
      if (Number.isFinite(ttlMs)) multi.set(PREFIX + key, json, 'PX', Math.max(1, Math.round(ttlMs + graceOf(key, options))));
      else multi.set(PREFIX + key, json);
      if (owner !== PUBLIC_OWNER) multi.sadd(ownerIndex(owner), key).pexpire(ownerIndex(owner), ownerIndexTtlMs);
      // The plugin does not wait for a write: it must never reject.
      return breaker.execute(() => multi.exec()).then(() => undefined, failed('SET'));
    },
    async invalidateOwner(owner) {
      const index = ownerIndex(owner);
      try {
        const keys = await redis.smembers(index);
        await redis.del(index, ...keys.map((key) => PREFIX + key));
      } catch (err) {
        failed('invalidation')(err);
      }
    },
  };
}
