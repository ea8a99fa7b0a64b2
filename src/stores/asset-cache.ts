import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { freshnessAt, isValidAssetId, type Asset, type AssetView, type FreshnessSource, type TokenRef } from '../models/index.js';
import { isUpstreamError } from '../upstream/errors.js';
import type { Upstream } from '../upstream/index.js';
import { type CallScope, isDeadlineExceeded, untilDeadline } from '../operation/index.js';
import { createCopies, type Copy } from './assets/copies.js';
import { assetLookupCounter } from './assets/lookups.js';
import { assetFromToken, createTokenRecords } from './assets/tokens.js';
import { taskNow } from './clock.js';
import { accepted } from './freshness.js';

export { assetFromToken } from './assets/tokens.js';

/**
 * The shared cache of public asset data, built once per process.
 *
 * One copy per asset, judged by what the lookup needs: metadata (name, symbol, image ...) is fresh for
 * `metadataTtlMs`, a price for `priceTtlMs` (prices move); an unknown id (404) is remembered for
 * `notFoundTtlMs` whatever the need. `Asset` fields look up the metadata; `Asset.price` looks up the
 * price, so a query without prices is answered from a copy hours old while one with prices refreshes
 * it every few seconds. What a lookup serves, and the `freshness.source` it reports:
 *
 * - a copy within the TTL of the need: `CACHE` (`FALLBACK` when the copy came from the second assets
 *   service), no call;
 * - a copy past that TTL by less than `staleWhileRevalidateMs`: the copy at once as `STALE`, while one
 *   refresh per id runs in the background;
 * - otherwise the assets service is asked (one call per id in flight, shared by concurrent requests and
 *   both needs): `ORIGIN`. When it fails (5xx, timeout, refused, breaker open, 429), in this order: the
 *   last good copy up to `maxStaleMs` old (`STALE`, its price included); the second assets service
 *   (`FALLBACK`); the token records of market listings and positions (`FALLBACK`, metadata only:
 *   `price` is null and flagged `priceUnavailable`). When none has the asset, the service's error is raised.
 *
 * `STALE` therefore always means "a copy older than the TTL of what was needed"; `FALLBACK` means "not
 * from the assets service itself". The schema's `Asset.freshness` is that of the metadata lookup; the
 * price's age shows in `price.updatedAt`. A 404 is an answer, not a failure: it gives `null` and is
 * cached briefly.
 *
 * A lookup whose scope carries the client's `FreshnessBound` (`Cache-Control: max-age=N`, `no-cache`)
 * treats a copy fetched more than N seconds before the operation as past its TTL with no
 * stale-while-revalidate: it asks the service, and serves that copy (`STALE`) only when the service fails.
 * Every answer carries its `freshness` (`asOf` is when the copy was fetched).
 */
export interface AssetCache {
  /** Token records seen in market listings and positions: the last metadata fallback when the assets service fails. */
  rememberTokens(tokens: readonly TokenRef[]): void;
  /**
   * The asset through the cache and the fallback chain above, fresh for `need`. `asset` is `null` when
   * the service does not know the id, or the id is not a valid asset id (no call is made). Rejects with
   * the assets service's `UpstreamError` when nothing has the asset. A call it starts counts in `scope`'s
   * budget but does not take its signal or deadline: other requests may join it. This lookup stops
   * waiting for it at `scope`'s deadline (then, as after any failure: a stale copy or a token record, if
   * there is one). Copies served are counted in `scope`'s ledger.
   */
  get(assetId: string, need: AssetNeed, scope?: CallScope): Promise<AssetLookup>;
  /**
   * `get`'s answer when a held copy gives it (fresh for `need`, or stale within the revalidation window,
   * whose refresh it starts), at once and without a promise; undefined when only a call can answer.
   * `served`: a view of this asset the request was served already; its copy answers when fresh for `need`.
   */
  held(assetId: string, need: AssetNeed, scope?: CallScope, served?: AssetView): AssetLookup | undefined;
  /**
   * Whether `get` for `need` would answer without a call now (an invalid id, or a held copy fresh or
   * within its revalidation window), looking only: no refresh started, nothing counted.
   */
  holds(assetId: string, need: AssetNeed): boolean;
}

/** What a lookup needs fresh: the metadata (good for hours) or the price (good for seconds). */
export type AssetNeed = 'metadata' | 'price';

export interface AssetLookup {
  asset: AssetView | null;
  /**
   * The assets service was asked for this answer (it answered or failed, the fallbacks included): in
   * the same request, a lookup for any need would learn nothing newer, and must not call again.
   */
  asked: boolean;
}

export interface AssetCacheOptions {
  /** Copies held at most. Default 10 000. */
  maxEntries?: number;
  /** Approximate size of the held copies in bytes at most. Default 32 MiB. */
  maxSizeBytes?: number;
  /** A copy's price is fresh this long (lookups for `Asset.price`). Default 30 s. */
  priceTtlMs?: number;
  /** A copy's metadata is fresh this long (every other lookup). Default 6 h. */
  metadataTtlMs?: number;
  /** Past its TTL, a copy is still served at once for this long while it is refreshed in the background. Default 30 s. */
  staleWhileRevalidateMs?: number;
  /** The oldest copy served when the assets service fails (stale-if-error); older copies are dropped. Default 24 h. */
  maxStaleMs?: number;
  /** How long an unknown id (404) is remembered. Default 60 s. */
  notFoundTtlMs?: number;
  /** Token records remembered at most. Default 50 000. */
  maxTokenRecords?: number;
  /** The clock, in ms (tests inject a fake one). Default `taskNow` (stores/clock.ts): `Date.now` read once per turn of the event loop. */
  now?: () => number;
}

/** The cache's bounds and lifetimes when the options leave them out. */
export const ASSET_CACHE_DEFAULTS = {
  maxEntries: 10_000,
  maxSizeBytes: 32 * 1024 * 1024,
  priceTtlMs: 30_000,
  metadataTtlMs: 6 * 60 * 60_000,
  staleWhileRevalidateMs: 30_000,
  maxStaleMs: 24 * 60 * 60_000,
  notFoundTtlMs: 60_000,
  maxTokenRecords: 50_000,
} satisfies Required<Omit<AssetCacheOptions, 'now'>>;

/** What the asset cache is built from. */
export interface AssetCacheDeps {
  upstream: Pick<Upstream, 'assets' | 'assetsFallback'>;
  logger: Logger;
  /** Where `gateway_asset_lookups_total` is registered. */
  registry: Registry;
}

/**
 * The lookup's rules (which copy serves which need, the fallback chain) over its parts (`assets/`):
 * the copies held and the calls that fill them, and the token records of the last fallback.
 */
export function createAssetCache(deps: AssetCacheDeps, options: AssetCacheOptions = {}): AssetCache {
  const o = { ...ASSET_CACHE_DEFAULTS, ...withoutUndefined(options) };
  // One clock reading per turn of the event loop: a page's lookups read it per token and need (stores/clock.ts).
  const now = options.now ?? taskNow;
  const { upstream, logger } = deps;

  const copies = createCopies({ ...o, now });
  const tokenRecords = createTokenRecords(o.maxTokenRecords, now);

  // The views served of each copy, by source (a copy is replaced, not changed, when fetched again), each
  // as the answer of a lookup that made no call: read, never changed, so a held lookup allocates nothing.
  const viewsOf = new WeakMap<Copy, Partial<Record<FreshnessSource, AssetLookup>>>();
  // The copy each view was made of, for a request's price lookup after its metadata lookup (`served`).
  const copyOfView = new WeakMap<AssetView, Copy>();
  const countLookup = assetLookupCounter(deps.registry);

  const ttlOf = (copy: Copy, need: AssetNeed): number =>
    copy.asset === null ? o.notFoundTtlMs : need === 'price' ? o.priceTtlMs : o.metadataTtlMs;

  function serve(copy: Copy, need: AssetNeed, source: FreshnessSource, asked: boolean, scope: CallScope | undefined): AssetLookup {
    countLookup(need, source);
    if (source !== 'ORIGIN') scope?.ledger?.cacheUse(source);
    if (!copy.asset) return { asset: null, asked };
    const held = heldView(copy, copy.asset, source);
    return asked ? { asset: held.asset, asked } : held;
  }

  /** A copy as served from one source: made once per copy and source, and handed to every request served it, not copied per token. */
  function heldView(copy: Copy, asset: Asset, source: FreshnessSource): AssetLookup {
    let views = viewsOf.get(copy);
    if (!views) viewsOf.set(copy, (views = {}));
    let held = views[source];
    if (!held) {
      const view = { ...asset, freshness: freshnessAt(source, copy.fetchedAt) };
      views[source] = held = { asset: view, asked: false };
      copyOfView.set(view, copy);
    }
    return held;
  }

  async function afterFailure(assetId: string, need: AssetNeed, error: unknown, scope: CallScope | undefined): Promise<AssetLookup> {
    const copy = copies.get(assetId);
    if (copy?.asset) return serve(copy, need, 'STALE', true, scope);

    let unknownToSecond = false;
    // Out of time: no second service either (a stale copy or a token record costs no wait).
    if (upstream.assetsFallback && !isDeadlineExceeded(error)) {
      try {
        const second = await untilDeadline(copies.fetch(assetId, upstream.assetsFallback, 'fallback', scope), scope?.deadline, 'assets');
        if (second.asset) return serve(second, need, 'FALLBACK', true, scope);
        unknownToSecond = true;
      } catch (secondError) {
        logger.warn({ err: secondError, assetId }, 'second assets service failed too');
      }
    }

    const record = tokenRecords.get(assetId);
    if (record) {
      countLookup(need, 'FALLBACK');
      scope?.ledger?.cacheUse('FALLBACK');
      const asset = assetFromToken(record.token);
      return { asset: { ...asset, freshness: freshnessAt('FALLBACK', record.seenAt), priceUnavailable: true }, asked: true };
    }
    if (unknownToSecond) return { asset: null, asked: true };
    throw error;
  }

  /** The answer a held copy gives: fresh, or stale within the revalidation window (its refresh started); undefined otherwise. */
  function held(assetId: string, need: AssetNeed, scope: CallScope | undefined): AssetLookup | undefined {
    const at = now();
    const copy = copies.get(assetId, at);
    // A copy older than the client's bound is past its TTL, and not served while revalidating either.
    if (!copy || !accepted(scope?.freshness, copy.fetchedAt, now)) return undefined;
    const age = at - copy.fetchedAt;
    const ttl = ttlOf(copy, need);
    if (age < ttl) return serve(copy, need, copy.origin === 'primary' ? 'CACHE' : 'FALLBACK', false, scope);
    if (age >= ttl + o.staleWhileRevalidateMs) return undefined;
    copies.fetch(assetId, upstream.assets, 'primary', scope).catch((error: unknown) =>
      logger.warn({ err: error, assetId }, 'background refresh of an asset failed; the copy stays'),
    );
    return serve(copy, need, 'STALE', false, scope);
  }

  return {
    rememberTokens: (tokens) => tokenRecords.remember(tokens),

    // Only valid ids are ever fetched, so a held copy's id is valid: the id is checked only when none is held.
    held(assetId, need, scope, served) {
      // The copy of a view this request was served, fresh for this need too: the held copies' answer, not looked up again.
      const copy = served && copyOfView.get(served);
      if (copy && now() - copy.fetchedAt < ttlOf(copy, need) && accepted(scope?.freshness, copy.fetchedAt, now)) {
        return serve(copy, need, copy.origin === 'primary' ? 'CACHE' : 'FALLBACK', false, scope);
      }
      return held(assetId, need, scope) ?? (isValidAssetId(assetId) ? undefined : { asset: null, asked: false });
    },

    holds(assetId, need) {
      const at = now();
      const copy = copies.get(assetId, at);
      if (!copy) return !isValidAssetId(assetId);
      return at - copy.fetchedAt < ttlOf(copy, need) + o.staleWhileRevalidateMs;
    },

    async get(assetId, need, scope) {
      const answer = held(assetId, need, scope);
      if (answer) return answer;
      if (!isValidAssetId(assetId)) return { asset: null, asked: false };
      try {
        const fetched = await untilDeadline(copies.fetch(assetId, upstream.assets, 'primary', scope), scope?.deadline, 'assets');
        return serve(fetched, need, 'ORIGIN', true, scope);
      } catch (error) {
        // The operation's own limit, not an outage: no fallback would be within it either.
        if (isUpstreamError(error, 'TOO_MANY_CALLS')) throw error;
        return afterFailure(assetId, need, error, scope);
      }
    },
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
