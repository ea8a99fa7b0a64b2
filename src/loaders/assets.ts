// STUB: the assets domain replaces this file, keeping the AssetLoaders members below.
import type DataLoader from 'dataloader';
import type { TokenRef } from '../models/index.js';
import type { AssetView } from '../schema/refs.js';
import type { Services } from '../services.js';

export interface AssetLoaders {
  /** By asset id (`solana:<address>`, `stock:AAPL` ...); null when unknown. Ids must be valid (checked by callers of user input). */
  asset: DataLoader<string, AssetView | null>;
  /** A token of a market or position: the asset, or, when the assets service fails, its metadata from the token record. */
  token(ref: TokenRef): Promise<AssetView | null>;
}

export function createAssetLoaders(_services: Services): AssetLoaders {
  throw new Error('not implemented');
}
