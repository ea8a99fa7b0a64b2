/**
 * Raw shapes of the positions endpoints of the markets and positions service (docs/upstream.md section 2), exactly as sent.
 * Optional fields may also arrive as null; unknown extra fields and enum values may appear.
 */

import type {
  RawBlink,
  RawLendingMarket,
  RawLoopMarket,
  RawMarket,
  RawMarketStatus,
  RawPerpetualMarket,
  RawPredictionMarket,
  RawToken,
  RawYieldMarket,
} from './raw-market.js';

export interface RawRewardAmount {
  tokenAddress: string;
  amount: number;
  amountUsd?: number | null;
}

export interface RawPositionBase {
  id: string;
  type: string;
  marketId: string;
  ownerAddress: string;
  bundleId?: string | null;
  websiteUrl?: string | null;
  amount: number;
  amountUsd?: number | null;
  additionalData?: Record<string, unknown> | null;
}

type WithStatus<M> = M & { status: RawMarketStatus };

export interface RawLendingPosition extends RawPositionBase {
  type: 'lending';
  side: 'deposit' | 'borrow';
  /** 0–100. */
  ltv?: number | null;
  liquidationPrice?: number | null;
  rewards?: RawRewardAmount[] | null;
  actions?: { deposit?: RawBlink; withdraw?: RawBlink; borrow?: RawBlink; repay?: RawBlink } | null;
  market: WithStatus<RawLendingMarket>;
}

export interface RawYieldPosition extends RawPositionBase {
  type: 'yield';
  rewards?: RawRewardAmount[] | null;
  market: WithStatus<RawYieldMarket>;
}

export interface RawLoopPosition extends RawPositionBase {
  type: 'loop';
  amountTokenA: number;
  amountTokenB: number;
  amountTokenAUsd?: number | null;
  amountTokenBUsd?: number | null;
  ltv?: number | null;
  liquidationPrice?: number | null;
  leverage?: number | null;
  market: WithStatus<RawLoopMarket>;
}

export interface RawPerpetualPosition extends RawPositionBase {
  type: 'perpetual';
  side: 'long' | 'short';
  leverage: number;
  entryPrice: number;
  markPrice?: number | null;
  market: WithStatus<RawPerpetualMarket>;
}

export interface RawRewardPosition extends RawPositionBase {
  type: 'reward';
  token: RawToken;
  position?: { id?: string; type: string; side?: string } | null;
  market?: WithStatus<RawMarket> | null;
}

export interface RawPredictionPosition extends RawPositionBase {
  type: 'prediction';
  side: 'yes' | 'no';
  token?: RawToken | null;
  costBasisAvg?: number | null;
  costBasisTotal?: number | null;
  pnl?: { total: number; realized: number; unrealized: number; unrealizedPct?: number | null } | null;
  market: WithStatus<RawPredictionMarket>;
}

export type RawPosition =
  | RawLendingPosition
  | RawYieldPosition
  | RawLoopPosition
  | RawPerpetualPosition
  | RawRewardPosition
  | RawPredictionPosition;

/** `GET /v0/positions/owners` */
export interface RawPositionsResponse {
  positions: RawPosition[];
}

/** `GET /v0/positions/history` */
export interface RawPositionHistoryResponse {
  data: {
    positions: {
      id: string;
      type: string;
      marketId: string;
      history: { timestamp: string; amount: number; amountUsd: number | null }[];
    }[];
  };
}
