import type { MarketType, Token, Blink, YieldMarket, LendingMarket, LoopMarket, PerpetualMarket, PredictionMarket, Market, WithStatus } from './market-types.js';

/** Positions as the simulator serves and stores them (docs/upstream.md section 2); an independent reading of the contract, as market-types.ts says. */
export interface RewardAmount {
  tokenAddress: string;
  amount: number;
  amountUsd?: number;
}

interface PositionBase {
  id: string;
  type: MarketType;
  marketId: string;
  ownerAddress: string;
  bundleId?: string;
  websiteUrl?: string;
  amount: number;
  amountUsd?: number;
  additionalData?: Record<string, unknown>;
}

export interface LendingPosition extends PositionBase {
  type: 'lending';
  side: 'deposit' | 'borrow';
  /** 0–100, as the contract says for lending. */
  ltv?: number;
  liquidationPrice?: number;
  rewards?: RewardAmount[];
  actions?: { deposit?: Blink; withdraw?: Blink; borrow?: Blink; repay?: Blink };
  market: WithStatus<LendingMarket>;
}

export interface YieldPosition extends PositionBase {
  type: 'yield';
  rewards?: RewardAmount[];
  market: WithStatus<YieldMarket>;
}

export interface LoopPosition extends PositionBase {
  type: 'loop';
  amountTokenA: number;
  amountTokenB: number;
  amountTokenAUsd?: number;
  amountTokenBUsd?: number;
  /** A ratio (0–1), like the loop market's maxLtv. */
  ltv?: number;
  liquidationPrice?: number;
  leverage?: number;
  market: WithStatus<LoopMarket>;
}

export interface PerpetualPosition extends PositionBase {
  type: 'perpetual';
  side: 'long' | 'short';
  leverage: number;
  entryPrice: number;
  markPrice?: number;
  market: WithStatus<PerpetualMarket>;
}

export interface RewardPosition extends PositionBase {
  type: 'reward';
  token: Token;
  position?: { id?: string; type: string; side?: string };
  market?: WithStatus<Market>;
}

export interface PredictionPosition extends PositionBase {
  type: 'prediction';
  side: 'yes' | 'no';
  token?: Token;
  costBasisAvg?: number;
  costBasisTotal?: number;
  pnl?: { total: number; realized: number; unrealized: number; unrealizedPct?: number };
  market: WithStatus<PredictionMarket>;
}

export type Position =
  | LendingPosition
  | YieldPosition
  | LoopPosition
  | PerpetualPosition
  | RewardPosition
  | PredictionPosition;
/** One prediction trade of a position, for the average cost method. */
export interface PredictionTrade {
  timestamp: string;
  kind: 'buy' | 'sell' | 'transfer_out';
  quantity: number;
  /** Price per share (0–1 USD). Transfers out ignore it. */
  price: number;
}

/** How a position's value moves over time (internal). */
export type ValuationModel =
  | { kind: 'token'; assetId: string }
  | { kind: 'loop'; assetIdA: string; assetIdB: string }
  | { kind: 'perp'; assetId: string; collateralUsd: number }
  | { kind: 'prediction'; assetId: string; trades: PredictionTrade[] };

/**
 * A position as stored: the static public record (amountUsd and the other price-dependent fields are
 * filled in at request time by `world.positionAt`), when it was opened, and its valuation model.
 */
export interface PositionRecord {
  position: Position;
  openedAtMs: number;
  valuation: ValuationModel;
}
