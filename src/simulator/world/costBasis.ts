/** Average cost method for prediction positions (docs/upstream.md 2.3). */
import type { PredictionTrade } from './position-types.js';

export interface CostBasisResult {
  /** Shares held after the trades. */
  quantity: number;
  /** Average entry price of the shares held (0 when none). */
  costBasisAvg: number;
  /** Capital committed to the shares held (0 when none). */
  costBasisTotal: number;
  /** Profit realised by sells: Σ quantity · (sell price − average price at the time). */
  realizedPnl: number;
}

const EPS = 1e-9;

/**
 * Replays trades in order with the average cost method:
 * - a buy adds `quantity` shares and `quantity · price` of committed capital;
 * - a sell removes shares at the current average price (committed capital falls by `quantity · avg`)
 *   and realises `quantity · (price − avg)`;
 * - a transfer out removes shares at the average price too, realising nothing;
 * - when the quantity reaches zero (a full exit) both quantity and committed capital reset to zero,
 *   so the next buy starts a fresh average.
 * Sells and transfers larger than the holding are capped at the holding.
 */
export function averageCostBasis(trades: readonly PredictionTrade[]): CostBasisResult {
  let quantity = 0;
  let total = 0;
  let realized = 0;
  for (const trade of trades) {
    const q = Math.max(0, trade.quantity);
    if (trade.kind === 'buy') {
      quantity += q;
      total += q * trade.price;
      continue;
    }
    const avg = quantity > EPS ? total / quantity : 0;
    const out = Math.min(q, quantity);
    if (trade.kind === 'sell') realized += out * (trade.price - avg);
    quantity -= out;
    total -= out * avg;
    if (quantity <= EPS) {
      quantity = 0;
      total = 0;
    }
  }
  return {
    quantity,
    costBasisAvg: quantity > 0 ? total / quantity : 0,
    costBasisTotal: total,
    realizedPnl: realized,
  };
}

/** The shares held at epoch ms `t`: the trades up to and including `t`. */
export function quantityAt(trades: readonly PredictionTrade[], t: number): number {
  let quantity = 0;
  for (const trade of trades) {
    if (Date.parse(trade.timestamp) > t) break;
    if (trade.kind === 'buy') quantity += trade.quantity;
    else quantity = Math.max(0, quantity - trade.quantity);
    if (quantity <= EPS) quantity = 0;
  }
  return quantity;
}
