import { LRUCache } from 'lru-cache';
import { InFlight } from '../../inflight.js';
import type { Asset } from '../../models/index.js';
import { assertMayCall, detached, type CallScope } from '../../operation/index.js';
import type { AssetsClient } from '../../upstream/index.js';
import { heldLru, setWithin } from '../../held.js';

/** Which assets service a copy came from. */
export type Origin = 'primary' | 'fallback';

/** One answer of an assets service: the asset, or `null` for a 404. */
export interface Copy {
  asset: Asset | null;
  fetchedAt: number;
  origin: Origin;
}

export interface CopiesOptions {
  maxEntries: number;
  maxSizeBytes: number;
  /** Copies are dropped this long after they were fetched (the stale-if-error bound). */
  maxStaleMs: number;
  /** How long the primary's 404 is kept. */
  notFoundTtlMs: number;
  now: () => number;
}

/**
 * The copies the asset cache holds, and the calls that fill them: one call per service and id at a
 * time, whoever asks; a found asset (and the primary's 404) is kept. Whether a copy is fresh enough is
 * the lookup's to decide, from `fetchedAt`.
 */
export interface Copies {
  /** The copy held, when younger than its bound (`maxStaleMs`, a 404's `notFoundTtlMs`) at `at` (default: now). */
  get(assetId: string, at?: number): Copy | undefined;
  /**
   * The asset from `client`, joining a call in flight for the same id. A call it starts counts in
   * `scope`'s budget but does not take its signal or deadline: other requests may join it.
   */
  fetch(assetId: string, client: AssetsClient, origin: Origin, scope: CallScope | undefined): Promise<Copy>;
}

export function createCopies(o: CopiesOptions): Copies {
  const { now } = o;
  // Entries live until the stale-if-error bound (a 404 for its own TTL); freshness is decided per lookup
  // from `fetchedAt`. The bound is checked here on the lookup's clock reading rather than by lru-cache's
  // TTL, which reads the clock again and keeps its own times per entry: one clock read per lookup.
  // Bounded in count as it is set (`setWithin`).
  const copies = heldLru('asset_copies', new LRUCache<string, Copy>({ maxSize: o.maxSizeBytes, sizeCalculation: sizeOf }));
  const expired = (copy: Copy, at: number) => at - copy.fetchedAt > (copy.asset === null ? o.notFoundTtlMs : o.maxStaleMs);
  const inFlight = new InFlight<string, Copy>();

  return {
    get(assetId, at = now()) {
      const copy = copies.get(assetId);
      if (copy === undefined || !expired(copy, at)) return copy;
      copies.delete(assetId);
      return undefined;
    },

    async fetch(assetId, client, origin, scope) {
      const key = `${origin} ${assetId}`;
      const flight = inFlight.get(key);
      // The caller bounds its wait with its own deadline (the asset cache's lookups).
      if (flight) return flight.result;
      // An operation past its call budget or out of time is refused here, alone: as the shared call,
      // its refusal would reach every request that joins it.
      assertMayCall(scope, 'assets');
      const work = () =>
        client.getAsset(assetId, { scope: detached(scope) }).then((asset) => {
          const copy: Copy = { asset, fetchedAt: now(), origin };
          // Only the primary's 404 is kept (for `notFoundTtlMs`, as `get` checks).
          if (asset || origin === 'primary') setWithin(copies, o.maxEntries, assetId, copy);
          return copy;
        });
      return inFlight.start(key, work, { meta: undefined }).result;
    },
  };
}

/** A rough byte count of a copy: enough to bound memory when descriptions or tag lists are large. */
function sizeOf(copy: Copy): number {
  const a = copy.asset;
  if (!a) return 64;
  let size = 256;
  for (const text of [a.assetId, a.chain, a.address, a.rawType, a.name, a.symbol, a.imageUrl, a.description, a.websiteUrl]) {
    size += text?.length ?? 0;
  }
  for (const tag of a.tags) size += tag.length + 16;
  return size;
}
