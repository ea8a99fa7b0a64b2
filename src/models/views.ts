import type { Asset } from './asset.js';

/**
 * What the gateway serves, as the loaders and the shared stores produce it: the upstream models plus
 * what the gateway knows about them. The schema's object types are built on these.
 */

/** Where an asset's metadata came from on this request. */
export type MetadataSource = 'PRIMARY' | 'CACHE' | 'STALE' | 'FALLBACK';

/** An asset as served: the model plus where its metadata came from. */
export interface AssetView extends Asset {
  metadataSource: MetadataSource;
  /** `price` is null because no assets service could be reached (not because the asset has none): the field reports UPSTREAM_UNAVAILABLE. */
  priceUnavailable?: boolean;
  /** A search result: only the summary fields are known; the others are loaded when asked for. */
  summaryOnly?: boolean;
}

export interface WalletModel {
  address: string;
}

export interface SubscriberModel {
  walletAddress: string;
}
