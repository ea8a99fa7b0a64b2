import type { Position, PositionValue } from '../../models/index.js';

/** The asset whose price moves a position's value, and how: the assets each position needs priced. */
export function pricedAssets(position: Position): string[] {
  switch (position.type) {
    case 'LENDING':
      return tokenOf(position.side === 'BORROW' ? (position.market?.borrowToken ?? null) : (position.market?.token ?? null));
    case 'YIELD':
      return tokenOf(position.market?.token ?? null);
    case 'REWARD':
      return tokenOf(position.token);
    case 'PREDICTION':
      return tokenOf(position.token);
    case 'LOOP':
      return position.market ? [position.market.tokenA.assetId, position.market.tokenB.assetId] : [];
    case 'PERPETUAL':
      return position.market ? [position.market.tokenA.assetId] : [];
  }
}

const tokenOf = (token: { assetId: string } | null): string[] => (token ? [token.assetId] : []);

/**
 * A position's value at `prices`: the amount held times the price for token positions, both legs of a
 * loop, and for a perpetual the upstream's value moved by the mark's change since its read. Without a
 * price for what it needs, the value the positions service last sent.
 */
export function valuePosition(position: Position, prices: ReadonlyMap<string, number | null>): PositionValue {
  const assets = pricedAssets(position);
  const usd = assets.map((id) => prices.get(id));
  const asRead: PositionValue = { position, valueUsd: position.amountUsd, live: false };
  if (assets.length === 0 || usd.some((p) => p === null || p === undefined)) return asRead;
  const [a, b] = usd as number[];
  switch (position.type) {
    case 'LOOP':
      return { position, valueUsd: position.amountTokenA * a! - position.amountTokenB * b!, live: true };
    case 'PERPETUAL': {
      if (position.amountUsd === null || position.markPrice === null) return asRead;
      const moved = position.amount * (a! - position.markPrice) * (position.side === 'LONG' ? 1 : -1);
      return { position, valueUsd: Math.max(0, position.amountUsd + moved), live: true };
    }
    default:
      return { position, valueUsd: position.amount * a!, live: true };
  }
}

/** A wallet's net value: the sum of its positions' values, borrowed amounts subtracted, a missing value counting 0. */
export function netValue(values: readonly PositionValue[]): number {
  let total = 0;
  for (const { position, valueUsd } of values) {
    const value = valueUsd ?? 0;
    total += position.type === 'LENDING' && position.side === 'BORROW' ? -value : value;
  }
  return total;
}
