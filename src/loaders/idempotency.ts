import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** How long a key is remembered, as the alerts service does (UPSTREAM.md 1.5). */
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
 * In-process and bounded (LRU with a 24 h TTL); the upstream's own `Idempotency-Key` handling covers
 * what this process forgot (restart, eviction, another replica).
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

export function createIdempotencyStore(options: IdempotencyStoreOptions = {}): IdempotencyStore {
  const entries = new LRUCache<string, Entry>({
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

/** Header values cannot hold a newline, so the separator keeps (api key, idempotency key) pairs apart. */
function entryId(apiKey: string, idempotencyKey: string): string {
  return createHash('sha256').update(apiKey).update('\n').update(idempotencyKey).digest('base64url');
}
