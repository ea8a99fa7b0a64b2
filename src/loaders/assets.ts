import DataLoader from 'dataloader';
import type { AssetView, PriceHistory, Resolution, TokenRef } from '../models/index.js';
import type { Services } from '../services.js';
import { isValidAssetId } from '../upstream/index.js';
import { assetFromToken, freshnessOf } from '../stores/asset-cache.js';
import type { CallScope } from '../upstream/scope.js';

/** One price series request: every argument that changes the upstream's answer. */
export interface PriceHistoryKey {
  assetId: string;
  /** ISO 8601. */
  from: string;
  /** ISO 8601; null = now (the upstream's default). */
  to: string | null;
  resolution: Resolution;
}

export interface AssetLoaders {
  /**
   * By asset id (`solana:<address>`, `stock:AAPL` ...); null when unknown. Ids must be valid (checked by
   * callers of user input). Fresh for the metadata: its `price` may be as old as the metadata TTL, so
   * read prices through `price`.
   */
  asset: DataLoader<string, AssetView | null>;
  /**
   * The asset as `price` needs it: with a price within the price TTL (or the fallback chain's best),
   * looked up once per loaded asset. Pass an asset this request loaded (`asset`, `token`).
   */
  price(asset: AssetView): Promise<AssetView | null>;
  /** A token of a market or position: the asset, or, when the assets service fails, its metadata from the token record. */
  token(ref: TokenRef): Promise<AssetView | null>;
  /** An asset's whole price series for a range (≤ 2 000 points, one upstream call); null when the asset is unknown. */
  priceHistory: DataLoader<PriceHistoryKey, PriceHistory | null, string>;
}

/**
 * Per-request loaders over the shared asset cache: each id and each series is asked for once per request.
 * `scope` is the operation's. Its signal aborts the price series calls only: the cache's calls are shared
 * with other requests, so they take the scope without it (they still count in the operation's budget).
 */
export function createAssetLoaders(services: Services, scope: CallScope = {}): AssetLoaders {
  const { assetCache, upstream } = services;

  // Assets this request fetched (or tried to): their price is as fresh as it gets, so `price` does
  // not ask again.
  const fetched = new WeakSet<AssetView>();
  // By the loaded asset rather than by id: a subscription reloads an asset for each event
  // (`asset.clear(id)`), and its price must be looked up again with it.
  const prices = new WeakMap<AssetView, Promise<AssetView | null>>();

  // The assets service has no batch read: a "batch" is the set of distinct ids of one tick, each
  // answered by the shared cache (which also shares calls in flight across requests).
  const asset = new DataLoader<string, AssetView | null>((ids) =>
    Promise.all(
      ids.map((id) =>
        assetCache.get(id, 'metadata', scope).then((lookup) => {
          if (lookup.asset && lookup.asked) fetched.add(lookup.asset);
          return lookup.asset;
        }, asError),
      ),
    ),
  );

  const priceHistory = new DataLoader<PriceHistoryKey, PriceHistory | null, string>(
    (keys) =>
      Promise.all(
        keys.map((key) =>
          upstream.assets
            .getPriceHistory(key.assetId, { from: key.from, to: key.to ?? undefined, resolution: key.resolution, scope })
            .catch(asError),
        ),
      ),
    { cacheKeyFn: (key) => `${key.assetId} ${key.from} ${key.to ?? 'now'} ${key.resolution}` },
  );

  return {
    asset,
    priceHistory,
    price(loaded) {
      // Fetched (or tried) for this request, or a token record standing in for a failed service: asking again would learn nothing.
      if (fetched.has(loaded) || loaded.priceUnavailable) return Promise.resolve(loaded);
      let pending = prices.get(loaded);
      if (!pending) {
        pending = assetCache.get(loaded.assetId, 'price', scope).then((lookup) => lookup.asset);
        prices.set(loaded, pending);
      }
      return pending;
    },
    async token(ref) {
      assetCache.rememberTokens([ref]);
      // The cache falls back to the record just remembered when the service fails, so a null here
      // means the assets service does not know the token (or its id cannot be looked up): the record
      // is then all there is, and a missing price is simply unknown.
      const found = isValidAssetId(ref.assetId) ? await asset.load(ref.assetId).catch(() => undefined) : null;
      if (found) return found;
      // When the record was read is not carried with it: `asOf` unknown.
      return { ...assetFromToken(ref), metadataSource: 'FALLBACK', freshness: freshnessOf('FALLBACK', null), priceUnavailable: found === undefined };
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
