/** Raw shapes of the assets service (docs/upstream.md section 3), exactly as sent. */

export interface RawAssetSummary {
  id: string;
  chain: string;
  address: string | null;
  /** `token | stock | rwa` or a type the gateway does not know yet. */
  type: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
}

export interface RawAsset extends RawAssetSummary {
  decimals: number | null;
  tags: string[];
  description?: string | null;
  websiteUrl?: string | null;
  price: { usd: number; change24h: number | null; updatedAt: string } | null;
  marketCapUsd?: number | null;
}

/** `GET /v0/search` */
export interface RawSearchResponse {
  results: RawAssetSummary[];
  cursor: string | null;
}

/** `GET /v0/assets/{id}/history` */
export interface RawAssetHistoryResponse {
  id: string;
  resolution: string;
  points: { timestamp: string; priceUsd: number }[];
}
