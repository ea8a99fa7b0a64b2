import type { MarketType, TokenRef } from './common.js';
import type { LendingMarket, LoopMarket, Market, PerpetualMarket, PredictionMarket, YieldMarket } from './market.js';
import type { Passthrough } from './passthrough.js';

/** A reward accrued on a position, not yet claimed. */
export interface PositionReward {
  /** `solana:<tokenAddress>`. */
  assetId: string;
  tokenAddress: string;
  amount: number;
  amountUsd: number | null;
}

interface PositionBase {
  positionId: string;
  type: MarketType;
  ownerAddress: string;
  marketId: string;
  /** The market as embedded in the position, with the position's `market.status`; null when absent or of an unknown type. */
  market: Market | null;
  amount: number;
  amountUsd: number | null;
  websiteUrl: string | null;
  bundleId: string | null;
  rewards: PositionReward[];
  /** As sent, within the passthrough bounds; `Withheld` past them. */
  additionalData: Passthrough;
  /** Action links keyed by action name. */
  actions: Record<string, string>;
}

export type LendingSide = 'DEPOSIT' | 'BORROW';
export type PerpetualSide = 'LONG' | 'SHORT';
export type PredictionSide = 'YES' | 'NO';

export interface LendingPosition extends PositionBase {
  type: 'LENDING';
  market: LendingMarket | null;
  side: LendingSide;
  /** A fraction (0.42 = 42 %); the upstream sends 0–100. */
  ltv: number | null;
  liquidationPrice: number | null;
}

export interface YieldPosition extends PositionBase {
  type: 'YIELD';
  market: YieldMarket | null;
}

export interface LoopPosition extends PositionBase {
  type: 'LOOP';
  market: LoopMarket | null;
  amountTokenA: number;
  amountTokenB: number;
  amountTokenAUsd: number | null;
  amountTokenBUsd: number | null;
  /** As sent: a ratio (only the lending LTV comes as 0–100). */
  ltv: number | null;
  liquidationPrice: number | null;
  leverage: number | null;
}

export interface PerpetualPosition extends PositionBase {
  type: 'PERPETUAL';
  market: PerpetualMarket | null;
  side: PerpetualSide;
  leverage: number;
  entryPrice: number;
  markPrice: number | null;
}

export interface RewardPosition extends PositionBase {
  type: 'REWARD';
  token: TokenRef;
  /** The position the reward was earned on (`position.id`); it may have closed since. */
  parentPositionId: string | null;
  parentPositionType: MarketType | null;
}

export interface CostBasis {
  averageEntryPrice: number | null;
  totalCapitalCommitted: number | null;
}

export interface ProfitAndLoss {
  total: number;
  realized: number;
  unrealized: number;
  unrealizedPct: number | null;
}

export interface PredictionPosition extends PositionBase {
  type: 'PREDICTION';
  market: PredictionMarket | null;
  side: PredictionSide;
  token: TokenRef | null;
  costBasis: CostBasis;
  pnl: ProfitAndLoss | null;
}

export type Position =
  | LendingPosition
  | YieldPosition
  | LoopPosition
  | PerpetualPosition
  | RewardPosition
  | PredictionPosition;

/** Net value of a wallet: the sum of `amountUsd`, borrow-side lending positions subtracted, a missing amount counting 0. */
export function walletTotalValueUsd(positions: readonly Position[]): number {
  let total = 0;
  for (const position of positions) {
    const value = position.amountUsd ?? 0;
    total += position.type === 'LENDING' && position.side === 'BORROW' ? -value : value;
  }
  return total;
}

export interface PositionHistoryPoint {
  timestamp: string;
  amount: number | null;
  amountUsd: number | null;
}

export interface PositionHistory {
  positionId: string;
  /** Null when the upstream sends a type the gateway does not know. */
  type: MarketType | null;
  marketId: string;
  points: PositionHistoryPoint[];
}

export interface WalletValuePoint {
  timestamp: string;
  valueUsd: number;
}

/**
 * A wallet's value over time: per timestamp, the sum of its positions' `amountUsd` (null counting 0),
 * oldest first. Timestamps are compared as instants, so `…00Z` and `…00.000Z` meet.
 */
export function walletValueHistory(histories: readonly PositionHistory[]): WalletValuePoint[] {
  const sums = new Map<number, number>();
  for (const history of histories) {
    for (const point of history.points) {
      const at = Date.parse(point.timestamp);
      if (Number.isNaN(at)) continue;
      sums.set(at, (sums.get(at) ?? 0) + (point.amountUsd ?? 0));
    }
  }
  return [...sums.entries()]
    .sort(([a], [b]) => a - b)
    .map(([at, valueUsd]) => ({ timestamp: new Date(at).toISOString(), valueUsd }));
}
