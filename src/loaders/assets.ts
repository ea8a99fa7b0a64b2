import DataLoader from 'dataloader';
import type { PriceHistory, Resolution, TokenRef } from '../models/index.js';
import type { AssetView } from '../schema/refs.js';
import type { Services } from '../services.js';
import { isValidAssetId } from '../upstream/index.js';
import { assetFromToken } from './asset-cache.js';

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
  /** By asset id (`solana:<address>`, `stock:AAPL` ...); null when unknown. Ids must be valid (checked by callers of user input). */
  asset: DataLoader<string, AssetView | null>;
  /** A token of a market or position: the asset, or, when the assets service fails, its metadata from the token record. */
  token(ref: TokenRef): Promise<AssetView | null>;
  /** An asset's whole price series for a range (≤ 2 000 points, one upstream call); null when the asset is unknown. */
  priceHistory: DataLoader<PriceHistoryKey, PriceHistory | null, string>;
}

/** Per-request loaders over the shared asset cache: each id and each series is asked for once per request. */
export function createAssetLoaders(services: Services): AssetLoaders {
  const { assetCache, upstream } = services;

  // The assets service has no batch read: a "batch" is the set of distinct ids of one tick, each
  // answered by the shared cache (which also shares calls in flight across requests).
  const asset = new DataLoader<string, AssetView | null>((ids) =>
    Promise.all(ids.map((id) => assetCache.get(id).catch(asError))),
  );

  const priceHistory = new DataLoader<PriceHistoryKey, PriceHistory | null, string>(
    (keys) =>
      Promise.all(
        keys.map((key) =>
          upstream.assets
            .getPriceHistory(key.assetId, { from: key.from, to: key.to ?? undefined, resolution: key.resolution })
            .catch(asError),
        ),
      ),
    { cacheKeyFn: (key) => `${key.assetId} ${key.from} ${key.to ?? 'now'} ${key.resolution}` },
  );

  return {
    asset,
    priceHistory,
    async token(ref) {
      assetCache.rememberTokens([ref]);
      // The cache falls back to the record just remembered when the service fails, so a null here
      // means the assets service does not know the token (or its id cannot be looked up): the record
      // is then all there is, and a missing price is simply unknown.
      const found = isValidAssetId(ref.assetId) ? await asset.load(ref.assetId).catch(() => undefined) : null;
      if (found) return found;
      return { ...assetFromToken(ref), metadataSource: 'FALLBACK', priceUnavailable: found === undefined };
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
