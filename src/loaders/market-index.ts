// STUB: the markets domain replaces this file, keeping the MarketIndex members and factory signature below.
import type { TokenRef } from '../models/index.js';
import type { ServiceDeps } from '../services.js';

export interface MarketIndexOptions {
  /** Called with the token records of every listing page the index reads (feeds the asset fallback). */
  onTokens?: (tokens: readonly TokenRef[]) => void;
}

export interface MarketIndex {
  start(): Promise<void>;
  stop(): void;
}

export function createMarketIndex(_deps: ServiceDeps, _options: MarketIndexOptions = {}): MarketIndex {
  return { start: async () => {}, stop: () => {} };
}
