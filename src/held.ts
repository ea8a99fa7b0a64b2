import { LRUCache } from 'lru-cache';
import { Gauge, type Registry } from 'prom-client';

/**
 * What the process holds in memory beyond a request, structure by structure: each says the bytes it
 * holds now and the most it may hold, and `/metrics` reports both (`gateway_held_bytes`,
 * `gateway_held_max_bytes`, labelled `structure`), so an operator sees what fills the heap and what
 * bounds it. Structures register themselves when built; one that is no longer reachable drops out.
 */
export interface Held {
  /** The `structure` label: one name per kind of structure (several instances are summed). */
  readonly name: string;
  bytes(): number;
  readonly maxBytes: number;
}

const held = new Set<WeakRef<Held>>();
/** Keeps each registration alive as long as what it reports on. */
const registrations = new WeakMap<object, Held>();

/** Registers what `owner` holds, for as long as `owner` is reachable. */
export function holding(owner: object, structure: Held): void {
  registrations.set(owner, structure);
  held.add(new WeakRef(structure));
}

/** Bytes held now and their bound, per structure name, over every structure still reachable. */
export function heldBytes(): Map<string, { bytes: number; maxBytes: number }> {
  const totals = new Map<string, { bytes: number; maxBytes: number }>();
  for (const ref of held) {
    const structure = ref.deref();
    if (!structure) {
      held.delete(ref);
      continue;
    }
    const total = totals.get(structure.name) ?? { bytes: 0, maxBytes: 0 };
    total.bytes += structure.bytes();
    total.maxBytes += structure.maxBytes;
    totals.set(structure.name, total);
  }
  return totals;
}

/** The two gauges, each computed when scraped (a scrape reads the bound first, so neither waits on the other). */
export function registerHeldGauges(registry: Registry): void {
  const gauge = (name: string, help: string, pick: (total: { bytes: number; maxBytes: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['structure'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [structure, total] of heldBytes()) this.set({ structure }, pick(total));
      },
    });
  gauge('gateway_held_max_bytes', 'The most each structure held in memory may hold, in bytes.', (total) => total.maxBytes);
  gauge('gateway_held_bytes', 'Bytes each structure held in memory (caches, remembered identities and ids) holds now, estimated from what it holds.', (total) => total.bytes);
}

export interface CountedCacheOptions<K extends string, V extends object | true> {
  /** The `structure` label of its gauges. */
  name: string;
  /** Entries held at most. */
  max: number;
  /** The most one entry holds, key and value with the cache's own bookkeeping: its keys and values are of bounded size. */
  entryBytes: number;
  ttl?: number;
  ttlResolution?: number;
  perf?: { now: () => number };
  /** Only to type the cache. */
  types?: [K, V];
}

/**
 * An LRU of at most `max` entries, each of at most `entryBytes`: bounded in count and so in bytes.
 * lru-cache given `max` allocates its index arrays for all `max` entries when built (a 100,000-entry
 * cache with a TTL is 4 MB before it holds anything, and those megabytes stay live in the old
 * generation, whose next collection V8 schedules at a multiple of what is live); bounded by `maxSize`
 * with every entry counting 1, it holds the same entries and grows its arrays as it fills.
 */
export function countedCache<K extends string, V extends object | true>(options: CountedCacheOptions<K, V>): LRUCache<K, V> {
  const cache = new LRUCache<K, V>({
    maxSize: options.max,
    sizeCalculation: () => 1,
    ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
    ...(options.ttlResolution !== undefined ? { ttlResolution: options.ttlResolution } : {}),
    ...(options.perf ? { perf: options.perf } : {}),
  });
  holding(cache, { name: options.name, bytes: () => cache.size * options.entryBytes, maxBytes: options.max * options.entryBytes });
  return cache;
}

/**
 * Sets `key` in an LRU bounded by bytes that also keeps at most `maxEntries`, evicting the least recent
 * first: lru-cache's own `max` would allocate index arrays for every entry when the cache is built.
 */
export function setWithin<K extends string, V extends object | string>(cache: LRUCache<K, V>, maxEntries: number, key: K, value: V): void {
  if (cache.size >= maxEntries && !cache.has(key)) cache.pop();
  cache.set(key, value);
}

/** Registers an LRU bounded by `maxSize` in bytes (its `sizeCalculation` estimates each entry's). Returns it. */
export function heldLru<C extends { readonly calculatedSize: number; readonly maxSize: number }>(name: string, cache: C): C {
  holding(cache, { name, bytes: () => cache.calculatedSize, maxBytes: cache.maxSize });
  return cache;
}
