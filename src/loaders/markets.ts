// STUB: the markets domain replaces this file, keeping the MarketLoaders members below.
import type DataLoader from 'dataloader';
import type { Market } from '../models/index.js';
import type { Services } from '../services.js';

export interface MarketLoaders {
  /** By the upstream's market id, from the shared market index; null when unknown. */
  market: DataLoader<string, Market | null>;
}

export function createMarketLoaders(_services: Services): MarketLoaders {
  throw new Error('not implemented');
}
