import DataLoader from 'dataloader';
import type { AssetSearchPage, AssetView, PriceHistory, Resolution, TokenRef } from '../models/index.js';
import type { Services } from '../services.js';
import { isValidAssetId, type SearchAssetsParams } from '../upstream/index.js';
import { assetFromToken, freshnessOf } from '../stores/asset-cache.js';
import type { CallScope } from '../upstream/scope.js';
import { asError, eventScope } from './common.js';

/** One price series request: every argument that changes the upstream's answer. */
export interface PriceHistoryKey {
  assetId: string;
  /** ISO 8601. */
  from: string;
  /** ISO 8601; null = now (the upstream's default). */
  to: string | null;
  resolution: Resolution;
}

/**
 * The assets service as one request sees it, over the shared asset cache: each id and each series is
 * asked for once per request. The operation's scope aborts the price series and search calls only:
 * the cache's calls are shared with other requests, so they take the scope without it (they still
 * count in the operation's budget). Loaders are built on first use.
 */
export class AssetsSource {
  readonly #services: Pick<Services, 'assetCache' | 'upstream'>;
  #scope: CallScope;
  #assets: DataLoader<string, AssetView | null> | undefined;
  #priceHistories: DataLoader<PriceHistoryKey, PriceHistory | null, string> | undefined;
  /** Assets this request fetched (or tried to): their price is as fresh as it gets, so `price` does not ask again. */
  #fetched: WeakSet<AssetView> | undefined;
  /** By the loaded asset rather than by id: an asset loaded again (a subscription's next event) is priced again. */
  #prices: WeakMap<AssetView, Promise<AssetView | null>> | undefined;

  constructor(services: Pick<Services, 'assetCache' | 'upstream'>, scope: CallScope = {}) {
    this.#services = services;
    this.#scope = scope;
  }

  /**
   * By asset id (`solana:<address>`, `stock:AAPL` ...); null when unknown. Ids must be valid (checked by
   * callers of user input). Fresh for the metadata: its `price` may be as old as the metadata TTL, so
   * read prices through `price`.
   */
  asset(id: string): Promise<AssetView | null> {
    return (this.#assets ??= this.#assetLoader()).load(id);
  }

  /**
   * The asset as `price` needs it: with a price within the price TTL (or the fallback chain's best),
   * looked up once per loaded asset. Pass an asset this request loaded (`asset`, `token`).
   */
  price(loaded: AssetView): Promise<AssetView | null> {
    // Fetched (or tried) for this request, or a token record standing in for a failed service: asking again would learn nothing.
    if (this.#fetched?.has(loaded) || loaded.priceUnavailable) return Promise.resolve(loaded);
    const prices = (this.#prices ??= new WeakMap());
    let pending = prices.get(loaded);
    if (!pending) {
      pending = this.#services.assetCache.get(loaded.assetId, 'price', this.#scope).then((lookup) => lookup.asset);
      prices.set(loaded, pending);
    }
    return pending;
  }

  /** A token of a market or position: the asset, or, when the assets service fails, its metadata from the token record. */
  async token(ref: TokenRef): Promise<AssetView | null> {
    this.#services.assetCache.rememberTokens([ref]);
    // The cache falls back to the record just remembered when the service fails, so a null here
    // means the assets service does not know the token (or its id cannot be looked up): the record
    // is then all there is, and a missing price is simply unknown.
    const found = isValidAssetId(ref.assetId) ? await this.asset(ref.assetId).catch(() => undefined) : null;
    if (found) return found;
    // When the record was read is not carried with it: `asOf` unknown.
    return { ...assetFromToken(ref), metadataSource: 'FALLBACK', freshness: freshnessOf('FALLBACK', null), priceUnavailable: found === undefined };
  }

  /** An asset's whole price series for a range (≤ 2 000 points, one upstream call); null when the asset is unknown. */
  priceHistory(key: PriceHistoryKey): Promise<PriceHistory | null> {
    return (this.#priceHistories ??= this.#priceHistoryLoader()).load(key);
  }

  /** One page of `GET /v0/assets/search`. */
  search(params: Omit<SearchAssetsParams, 'scope'>): Promise<AssetSearchPage> {
    return this.#services.upstream.assets.searchAssets({ ...params, scope: this.#scope });
  }

  /** Starts a subscription's event: forgets what earlier events loaded, and calls with the stream's signal alone. */
  startEvent(): void {
    this.#assets = undefined;
    this.#priceHistories = undefined;
    this.#fetched = undefined;
    this.#prices = undefined;
    this.#scope = eventScope(this.#scope);
  }

  // The assets service has no batch read: a "batch" is the set of distinct ids of one tick, each
  // answered by the shared cache (which also shares calls in flight across requests).
  #assetLoader(): DataLoader<string, AssetView | null> {
    const { assetCache } = this.#services;
    const scope = this.#scope;
    const fetched = (this.#fetched = new WeakSet());
    return new DataLoader<string, AssetView | null>((ids) =>
      Promise.all(
        ids.map((id) =>
          assetCache.get(id, 'metadata', scope).then((lookup) => {
            if (lookup.asset && lookup.asked) fetched.add(lookup.asset);
            return lookup.asset;
          }, asError),
        ),
      ),
    );
  }

  #priceHistoryLoader(): DataLoader<PriceHistoryKey, PriceHistory | null, string> {
    const assets = this.#services.upstream.assets;
    const scope = this.#scope;
    return new DataLoader<PriceHistoryKey, PriceHistory | null, string>(
      (keys) =>
        Promise.all(
          keys.map((key) =>
            assets.getPriceHistory(key.assetId, { from: key.from, to: key.to ?? undefined, resolution: key.resolution, scope }).catch(asError),
          ),
        ),
      { cacheKeyFn: (key) => `${key.assetId} ${key.from} ${key.to ?? 'now'} ${key.resolution}` },
    );
  }
}
