import DataLoader from 'dataloader';
import { freshnessAt, type AssetPriceView, type AssetSearchPage, type AssetView, type PriceHistory, type Resolution, type TokenRef } from '../models/index.js';
import type { Services } from '../services.js';
import type { SearchAssetsParams } from '../upstream/index.js';
import { assetFromToken } from '../stores/asset-cache.js';
import type { CallScope } from '../operation/index.js';
import { eventScope } from './common.js';
import { toError } from '../inflight-waiter.js';

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
  // A Set and a Map, not weak ones: they live as long as the request (an event, for a subscription) and
  // a weak collection's entry is an ephemeron the collector traces apart, one per token of a page.
  /** Assets this request fetched (or tried to): their price is as fresh as it gets, so `price` does not ask again. */
  #fetched: Set<AssetView> | undefined;
  /** By the loaded asset rather than by id: an asset loaded again (a subscription's next event) is priced again. */
  #prices: Map<AssetView, AssetView | null | Promise<AssetView | null>> | undefined;
  /** Assets a held copy answered at once, by id: one answer per id and request, as the loader's. */
  #held: Map<string, AssetView | null> | undefined;
  /** Ids asked of the loader in this request: it holds their answer (a call's, say), asked again through it. */
  #loading: Set<string> | undefined;

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
    const asset = this.#assetNow(id);
    return asset instanceof Promise ? asset : Promise.resolve(asset);
  }

  /**
   * The asset at once when a held copy answers (the cache's own TTLs and the client's bound decide), else
   * the loader's promise. Most tokens of a screen are held: each resolved without a promise costs the
   * executor no wait, where the loader would add a tick and a promise per token.
   */
  #assetNow(id: string): AssetView | null | Promise<AssetView | null> {
    const held = this.#held?.get(id);
    return held !== undefined ? held : this.#notHeld(id);
  }

  /** `#assetNow` for an id this request holds no answer for yet. */
  #notHeld(id: string): AssetView | null | Promise<AssetView | null> {
    if (!this.#loading?.has(id)) {
      const lookup = this.#services.assetCache.held(id, 'metadata', this.#scope);
      if (lookup) {
        (this.#held ??= new Map()).set(id, lookup.asset);
        return lookup.asset;
      }
      (this.#loading ??= new Set()).add(id);
    }
    return (this.#assets ??= this.#assetLoader()).load(id);
  }

  /**
   * The asset as `price` needs it: with a price within the price TTL (or the fallback chain's best),
   * looked up once per loaded asset. Pass an asset this request loaded (`asset`, `token`).
   */
  price(loaded: AssetView): AssetView | null | Promise<AssetView | null> {
    // Fetched (or tried) for this request, or a token record standing in for a failed service: asking again would learn nothing.
    if (this.#fetched?.has(loaded) || loaded.priceUnavailable) return loaded;
    const prices = (this.#prices ??= new Map<AssetView, AssetView | null | Promise<AssetView | null>>());
    let priced = prices.get(loaded);
    if (priced === undefined) {
      const { assetCache } = this.#services;
      // A held copy with a price within its TTL answers at once.
      const lookup = assetCache.held(loaded.assetId, 'price', this.#scope, loaded);
      priced = lookup ? lookup.asset : assetCache.get(loaded.assetId, 'price', this.#scope).then((answer) => answer.asset);
      prices.set(loaded, priced);
    }
    return priced;
  }

  /** A priced asset's price as served, with the asset's freshness: one object per view, shared by every request served that view. */
  priceView(priced: AssetView): AssetPriceView | null {
    if (!priced.price) return null;
    let view = priceViews.get(priced);
    if (!view) priceViews.set(priced, (view = { ...priced.price, freshness: priced.freshness }));
    return view;
  }

  /**
   * A token of a market or position: the asset (at once when held), or, when the assets service fails,
   * its metadata from the token record.
   */
  token(ref: TokenRef): AssetView | null | Promise<AssetView | null> {
    // A token this request was already answered for at once (a page's markets share tokens): its record
    // was remembered and its id checked then, so the answer is all a second sight needs.
    const held = this.#held?.get(ref.assetId);
    if (held) return held;
    this.#services.assetCache.rememberTokens([ref]);
    // The cache falls back to the record just remembered when the service fails, so a null here
    // means the assets service does not know the token (or its id cannot be looked up: the cache
    // answers null for an invalid id, and checks it only when it holds no copy): the record is then
    // all there is, and a missing price is simply unknown.
    const found = held === null ? null : this.#notHeld(ref.assetId);
    if (!(found instanceof Promise)) return found ?? fromRecord(ref, false);
    return found.then(
      (asset) => asset ?? fromRecord(ref, false),
      () => fromRecord(ref, true),
    );
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
    this.#held = undefined;
    this.#loading = undefined;
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
    const fetched = (this.#fetched = new Set());
    return new DataLoader<string, AssetView | null>((ids) =>
      Promise.all(
        ids.map((id) =>
          assetCache.get(id, 'metadata', scope).then((lookup) => {
            if (lookup.asset && lookup.asked) fetched.add(lookup.asset);
            return lookup.asset;
          }, toError),
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
            assets.getPriceHistory(key.assetId, { from: key.from, to: key.to ?? undefined, resolution: key.resolution, scope }).catch(toError),
          ),
        ),
      { cacheKeyFn: (key) => `${key.assetId} ${key.from} ${key.to ?? 'now'} ${key.resolution}` },
    );
  }
}

/**
 * Price views by the asset view they were made of (views are shared and never changed): a page's tokens
 * reuse them rather than copying a price per token and request. Held no longer than the views.
 */
const priceViews = new WeakMap<AssetView, AssetPriceView>();

/** A token's metadata from its record (when it was read is not carried with it: `asOf` unknown). */
function fromRecord(ref: TokenRef, priceUnavailable: boolean): AssetView {
  return { ...assetFromToken(ref), freshness: freshnessAt('FALLBACK', null), priceUnavailable };
}
