// STUB: the wallets domain replaces this file, keeping the PositionLoaders members below.
import type DataLoader from 'dataloader';
import type { Position } from '../models/index.js';
import type { Services } from '../services.js';

export interface PositionLoaders {
  /** Every position of a wallet (unfiltered), batched over wallets up to POSITIONS_BATCH_SIZE per call. */
  byWallet: DataLoader<string, Position[]>;
}

export function createPositionLoaders(_services: Services): PositionLoaders {
  throw new Error('not implemented');
}
