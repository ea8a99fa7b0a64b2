import type { FreshnessSource } from './freshness.js';
import type { Position } from './position.js';

/** One asset's price as the live feed read it; what `Subscription.prices` sends and replicas publish to each other. */
export interface PriceTick {
  assetId: string;
  usd: number | null;
  change24h: number | null;
  /** When the price was read from the assets service (epoch ms); null when unknown. */
  asOf: number | null;
  source: FreshnessSource;
  /** The last read failed: this is the last known price, served until the upstream answers again. */
  stale: boolean;
}

/** A position's value at the latest prices, and whether live prices gave it. */
export interface PositionValue {
  position: Position;
  /** USD; the upstream's own `amountUsd` when no live price applies. */
  valueUsd: number | null;
  /** Recomputed from live prices (false: as the positions service last sent it). */
  live: boolean;
}

/** One `walletValue` event. */
export interface WalletValueEvent {
  address: string;
  totalValueUsd: number;
  positions: PositionValue[];
  /** When the latest price behind this value was read (or the positions, when no price applies). */
  asOf: Date;
  /** Some price behind this value is the last known one: its read failed. */
  stale: boolean;
}
