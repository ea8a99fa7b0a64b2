/** Providers and markets of all six types; every token inside a market is a Solana asset. */
import type { Rng } from '../prng.js';
import { generateDefiMarkets } from './defi-markets.js';
import { marketsKit } from './market-kit.js';
import { generatePredictionMarkets } from './prediction-markets.js';
import type { AssetRecord } from './asset-types.js';
import type { Market, Provider } from './market-types.js';

export { BLINKS_BASE, toToken } from './market-kit.js';

export interface MarketsBuild {
  providers: Provider[];
  markets: Market[];
  /** The yes/no outcome tokens of prediction markets, to add to the assets. */
  outcomeAssets: AssetRecord[];
}

/**
 * Generates the markets. `priceRef(assetId)` is an asset's price at the world's reference instant
 * (used for the USD totals of the listing, which are static).
 */
export function generateMarkets(rng: Rng, assets: readonly AssetRecord[], priceRef: (assetId: string) => number): MarketsBuild {
  const kit = marketsKit(rng, assets, priceRef);
  generateDefiMarkets(kit);
  const outcomeAssets = generatePredictionMarkets(kit);
  return { providers: [...kit.providers.values()], markets: kit.markets, outcomeAssets };
}
