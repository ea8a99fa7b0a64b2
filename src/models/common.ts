export type MarketType = 'YIELD' | 'LENDING' | 'LOOP' | 'PERPETUAL' | 'REWARD' | 'PREDICTION';
export const MARKET_TYPES: readonly MarketType[] = ['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION'];

export type MarketStatus = 'OPEN' | 'CLOSED' | 'SETTLED';
export const MARKET_STATUSES: readonly MarketStatus[] = ['OPEN', 'CLOSED', 'SETTLED'];

/** Time buckets of the history series; each upstream endpoint accepts a subset. */
export type Resolution = 'ONE_MINUTE' | 'FIVE_MINUTES' | 'ONE_HOUR' | 'ONE_DAY';

/**
 * A token as the markets service describes it. The GraphQL layer resolves it to a full `Asset`
 * through the assets data source; these fields are the metadata fallback when the assets service fails.
 */
export interface TokenRef {
  /** `solana:<address>`: every token of the markets service is a Solana token. */
  assetId: string;
  address: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  name: string | null;
}

export interface Provider {
  providerId: string;
  name: string;
  icon: string | null;
}
