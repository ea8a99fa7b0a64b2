import { round, sig } from '../prng.js';
import { averageCostBasis, quantityAt } from './costBasis.js';
import type { PriceFn } from './pricing.js';
import type { Position, PositionRecord } from './position-types.js';
import { ms } from './series.js';

/** A position's value at a time and its public record then, from the prices of the assets it holds. */
export function positionValuation(price: PriceFn): {
  positionValueAt: (record: PositionRecord, at: Date | number) => { amount: number; amountUsd: number | null };
  positionAt: (record: PositionRecord, at?: Date | number) => Position;
} {
  const usdOf = (assetId: string, amount: number, t: number): number | null => {
    const p = price(assetId, t);
    return p === undefined ? null : round(amount * p, 6);
  };

  const positionValueAt = (record: PositionRecord, at: Date | number): { amount: number; amountUsd: number | null } => {
    const t = ms(at);
    const p = record.position;
    if (t < record.openedAtMs) return { amount: 0, amountUsd: 0 };
    const v = record.valuation;
    switch (v.kind) {
      case 'token':
        return { amount: p.amount, amountUsd: usdOf(v.assetId, p.amount, t) };
      case 'loop': {
        if (p.type !== 'loop') break;
        const a = price(v.assetIdA, t);
        const b = price(v.assetIdB, t);
        if (a === undefined || b === undefined) return { amount: p.amount, amountUsd: null };
        return { amount: p.amount, amountUsd: round(p.amountTokenA * a - p.amountTokenB * b, 6) };
      }
      case 'perp': {
        if (p.type !== 'perpetual') break;
        const mark = price(v.assetId, t);
        if (mark === undefined) return { amount: p.amount, amountUsd: null };
        const pnl = p.amount * (mark - p.entryPrice) * (p.side === 'long' ? 1 : -1);
        return { amount: p.amount, amountUsd: round(Math.max(0, v.collateralUsd + pnl), 6) };
      }
      case 'prediction': {
        const q = quantityAt(v.trades, t);
        return { amount: round(q, 6), amountUsd: usdOf(v.assetId, q, t) };
      }
    }
    return { amount: p.amount, amountUsd: null };
  };

  const positionAt = (record: PositionRecord, at?: Date | number): Position => {
    const t = ms(at);
    const p = record.position;
    const { amountUsd } = positionValueAt(record, Math.max(t, record.openedAtMs));
    const v = record.valuation;
    switch (p.type) {
      case 'lending':
      case 'yield': {
        const rewards = p.rewards?.map((r) => {
          const usd = usdOf(`solana:${r.tokenAddress}`, r.amount, t);
          return usd === null ? r : { ...r, amountUsd: round(usd, 6) };
        });
        return { ...p, amountUsd: amountUsd ?? undefined, ...(rewards ? { rewards } : {}) };
      }
      case 'loop': {
        if (v.kind !== 'loop') break;
        const a = price(v.assetIdA, t) ?? 0;
        const b = price(v.assetIdB, t) ?? 0;
        return { ...p, amountUsd: amountUsd ?? undefined, amountTokenAUsd: round(p.amountTokenA * a, 6), amountTokenBUsd: round(p.amountTokenB * b, 6) };
      }
      case 'perpetual': {
        if (v.kind !== 'perp') break;
        return { ...p, amountUsd: amountUsd ?? undefined, markPrice: sig(price(v.assetId, t) ?? p.entryPrice, 8) };
      }
      case 'prediction': {
        if (v.kind !== 'prediction') break;
        const cb = averageCostBasis(v.trades);
        const current = price(v.assetId, t) ?? 0;
        const value = cb.quantity * current;
        const unrealized = value - cb.costBasisTotal;
        return {
          ...p,
          amountUsd: round(value, 6),
          pnl: {
            total: round(cb.realizedPnl + unrealized, 6),
            realized: round(cb.realizedPnl, 6),
            unrealized: round(unrealized, 6),
            ...(cb.costBasisTotal > 0 ? { unrealizedPct: round(unrealized / cb.costBasisTotal, 6) } : {}),
          },
        };
      }
      case 'reward':
        return { ...p, amountUsd: amountUsd ?? undefined };
    }
    return { ...p };
  };

  return { positionValueAt, positionAt };
}
