import type { Asset, AssetPrice } from './asset.js';
import type { Freshness } from './freshness.js';

/**
 * What the gateway serves, as the data sources and the shared stores produce it: the upstream models plus
 * what the gateway knows about them. The schema's object types are built on these.
 */

/** An asset as served: the model plus where its metadata came from and when it was fetched. */
export interface AssetView extends Asset {
  freshness: Freshness;
  /** `price` is null because no assets service could be reached (not because the asset has none): the field reports UPSTREAM_UNAVAILABLE. */
  priceUnavailable?: boolean;
  /** A search result: only the summary fields are known; the others are loaded when asked for. */
  summaryOnly?: boolean;
}

/** A price as served: with the freshness of the lookup that gave it (its copy's, or this request's call). */
export interface AssetPriceView extends AssetPrice {
  freshness: Freshness;
}

export interface WalletModel {
  address: string;
}

export interface SubscriberModel {
  walletAddress: string;
}
