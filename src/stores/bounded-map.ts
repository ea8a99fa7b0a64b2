interface Slot<V> {
  value: V;
  size: number;
  /** Read since the sweep last passed it: it is kept once more, moved to the end. */
  used: boolean;
}

export interface BoundedMapOptions<V> {
  /** Entries held at most. */
  max: number;
  /** The sum of the entries' sizes at most; an entry larger than this is not held. */
  maxSize: number;
  /** An entry's size (bytes, estimated); default 1. */
  sizeOf?: (value: V) => number;
}

/**
 * A map bounded in entries and in size that drops the entries read least lately first: an
 * approximation of least-recently-used known as CLOCK, or second chance. A read marks its entry (one
 * Map lookup and a write) where lru-cache's `get` relinks the entry in its recency list through its
 * options and status checks; to make room, the oldest entries are visited in insertion order, a
 * marked one moved to the end unmarked, the first unmarked one dropped. The stores read a copy or a
 * token record per token of every screen, where lru-cache's `get` carried a sixth of the asset path's
 * profile (bench/PHASES.md, branch `stores2`).
 */
export class BoundedMap<K, V> {
  readonly #slots = new Map<K, Slot<V>>();
  readonly #max: number;
  readonly #sizeOf: ((value: V) => number) | undefined;
  #size = 0;
  /** The bound of `calculatedSize` (named as lru-cache's, for the held-bytes gauges). */
  readonly maxSize: number;

  constructor(options: BoundedMapOptions<V>) {
    if (!(options.max >= 1 && options.maxSize >= 1)) throw new RangeError('BoundedMap: max and maxSize must be at least 1');
    this.#max = options.max;
    this.maxSize = options.maxSize;
    this.#sizeOf = options.sizeOf;
  }

  /** Entries held. */
  get size(): number {
    return this.#slots.size;
  }

  /** The sum of the held entries' sizes. */
  get calculatedSize(): number {
    return this.#size;
  }

  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** Whether `key` is held, without marking it read. */
  has(key: K): boolean {
    return this.#slots.has(key);
  }

  /** Holds `value` under `key` as the newest entry, dropping others past either bound. */
  set(key: K, value: V): void {
    const size = this.#sizeOf?.(value) ?? 1;
    this.delete(key);
    if (size > this.maxSize) return;
    // Room made before it is set: the newest entry is never the one dropped.
    this.#makeRoom(size);
    this.#slots.set(key, { value, size, used: false });
    this.#size += size;
  }

  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    this.#slots.delete(key);
    this.#size -= slot.size;
    return true;
  }

  /** Drops entries until one more of `size` fits. */
  #makeRoom(size: number): void {
    const slots = this.#slots;
    const max = this.#max - 1;
    const maxSize = this.maxSize - size;
    if (slots.size <= max && this.#size <= maxSize) return;
    // A Map visits the entries set again during the loop: each is unmarked on its first visit, so the loop ends.
    for (const [key, slot] of slots) {
      slots.delete(key);
      if (slot.used) {
        slot.used = false;
        slots.set(key, slot);
      } else {
        this.#size -= slot.size;
      }
      if (slots.size <= max && this.#size <= maxSize) return;
    }
  }
}
