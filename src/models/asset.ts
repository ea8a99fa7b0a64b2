export type AssetType = 'TOKEN' | 'STOCK' | 'RWA' | 'UNKNOWN';

export interface AssetSummary {
  /** `<chain>:<rest>`, e.g. `solana:So111…`, `stock:AAPL`. */
  assetId: string;
  chain: string;
  address: string | null;
  type: AssetType;
  /** The upstream's type as sent, for types the gateway does not know yet. */
  rawType: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
}

export interface AssetPrice {
  usd: number;
  /** A ratio: -0.031 = -3.1 % over 24 h. */
  change24h: number | null;
  updatedAt: string;
}

export interface Asset extends AssetSummary {
  decimals: number | null;
  tags: string[];
  description: string | null;
  websiteUrl: string | null;
  price: AssetPrice | null;
  /** The service sent a price that breaks its contract (a number as a string): `price` is null and the field reports invalid upstream data. */
  priceInvalid?: true;
  marketCapUsd: number | null;
}

export interface AssetSearchPage {
  results: AssetSummary[];
  cursor: string | null;
}

export interface PricePoint {
  timestamp: string;
  priceUsd: number;
}

export interface PriceHistory {
  assetId: string;
  /** As the upstream reports it (`5m`, `1h`, `1d`). */
  resolution: string;
  points: PricePoint[];
}
