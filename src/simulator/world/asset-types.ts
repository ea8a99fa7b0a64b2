/** Assets as the simulator serves and stores them (docs/upstream.md section 3); an independent reading of the contract, as market-types.ts says. */
export interface AssetSummary {
  id: string;
  chain: string;
  address: string | null;
  type: 'token' | 'stock' | 'rwa' | (string & {});
  name: string;
  symbol: string;
  imageUrl: string | null;
}

export interface Asset extends AssetSummary {
  decimals: number | null;
  tags: string[];
  description?: string | null;
  websiteUrl?: string | null;
  price: { usd: number; change24h: number | null; updatedAt: string } | null;
  marketCapUsd?: number | null;
}

/** How an asset's price moves: `base · exp(vol · noise(t))`, or a multiple of another asset's price. */
export interface PriceModel {
  /** Median USD price. */
  base: number;
  /** Log-volatility scale of the noise (0.001 for a stablecoin, 0.3 for SOL, 0.6 for a meme coin). */
  vol: number;
  /** Follows another asset: price = peg price · ratio · exp(vol · noise). */
  peg?: { assetId: string; ratio: number };
  /** A fixed price from `fixedFromMs` on (closed or settled outcome tokens); from the start when that is absent. */
  fixed?: number;
  fixedFromMs?: number;
  /** Mirrors another asset: price = 1 − that asset's price (the "no" token of a prediction market). */
  complementOf?: string;
  /** Clamp (outcome tokens live in [0.01, 0.99]). */
  min?: number;
  max?: number;
  /** Units in circulation, for marketCapUsd; undefined = no market cap. */
  supply?: number;
}

/** An asset as stored: the static public fields plus its price model. */
export interface AssetRecord extends Omit<Asset, 'price' | 'marketCapUsd'> {
  model: PriceModel;
}
