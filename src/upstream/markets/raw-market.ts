/**
 * Raw shapes of the markets endpoints of the markets and positions service (docs/upstream.md section 2), exactly as sent.
 * Optional fields may also arrive as null; unknown extra fields and enum values may appear.
 */

export interface RawToken {
  address: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  name?: string | null;
}

export interface RawProvider {
  id: string;
  name: string;
  icon: string;
}

export interface RawBlink {
  blinkUrl: string;
}

export type RawMarketStatus = 'open' | 'closed' | 'settled';
export type RawMarketType = 'yield' | 'lending' | 'loop' | 'perpetual' | 'reward' | 'prediction';

export interface RawMarketBase {
  id: string;
  type: string;
  productName: string;
  provider: RawProvider;
  websiteUrl?: string | null;
  additionalData?: { marketName?: string; [key: string]: unknown } | null;
}

export interface RawIncentive {
  type: 'deposit' | 'borrow';
  apy: number;
  token: RawToken;
}

export interface RawYieldMarket extends RawMarketBase {
  type: 'yield';
  token: RawToken;
  depositApy: number;
  baseDepositApy: number;
  baseDepositApy30d?: number | null;
  baseDepositApy90d?: number | null;
  baseDepositApy180d?: number | null;
  totalDeposit?: number | null;
  totalDepositUsd?: number | null;
  rewards?: RawIncentive[] | null;
  actions: { deposit?: RawBlink; withdraw?: RawBlink; claimRewards?: RawBlink };
}

export interface RawLendingMarket extends RawMarketBase {
  type: 'lending';
  token: RawToken;
  borrowToken?: RawToken | null;
  depositApy: number;
  baseDepositApy: number;
  baseDepositApy30d?: number | null;
  baseDepositApy90d?: number | null;
  baseDepositApy180d?: number | null;
  borrowApy: number;
  baseBorrowApy: number;
  baseBorrowApy30d?: number | null;
  baseBorrowApy90d?: number | null;
  baseBorrowApy180d?: number | null;
  totalDeposit: number;
  totalDepositUsd?: number | null;
  totalBorrow: number;
  totalBorrowUsd?: number | null;
  maxDeposit?: number | null;
  maxBorrow: number;
  maxLtv?: number | null;
  liquidationLtv?: number | null;
  liquidationPenalty?: number | null;
  rewards?: RawIncentive[] | null;
  actions: {
    deposit?: RawBlink;
    withdraw?: RawBlink;
    borrow?: RawBlink;
    repay?: RawBlink;
    repayWithCollateral?: RawBlink;
    claimRewards?: RawBlink;
  };
}

export interface RawLoopMarket extends RawMarketBase {
  type: 'loop';
  tokenA: RawToken;
  tokenB: RawToken;
  depositApy: number;
  depositApy30d?: number | null;
  depositApy90d?: number | null;
  depositApy180d?: number | null;
  maxLeverage: number;
  maxLtv: number;
  liquidationLtv: number;
  actions: { setup?: RawBlink; deposit?: RawBlink; withdraw?: RawBlink };
}

export interface RawPerpetualMarket extends RawMarketBase {
  type: 'perpetual';
  tokenA: RawToken;
  tokenB: RawToken;
  liquidity: { longUsd: number; shortUsd: number };
  maxLeverage: number;
  actions: { setup?: RawBlink; openPosition?: RawBlink; closePosition?: RawBlink };
}

export interface RawRewardMarket extends RawMarketBase {
  type: 'reward';
  token: RawToken;
  rewardApy: number;
  endsAt?: string | null;
  actions: { claimRewards?: RawBlink };
}

export interface RawPredictionMarket extends RawMarketBase {
  type: 'prediction';
  title: string;
  subtitle?: string | null;
  status: RawMarketStatus;
  result?: string | null;
  volume?: number | null;
  openInterest?: number | null;
  yesBid?: number | null;
  yesAsk?: number | null;
  noBid?: number | null;
  noAsk?: number | null;
  /** Epoch seconds. */
  openTime?: number | null;
  closeTime?: number | null;
  expirationTime?: number | null;
  yesToken?: RawToken | null;
  noToken?: RawToken | null;
}

export type RawMarket =
  | RawYieldMarket
  | RawLendingMarket
  | RawLoopMarket
  | RawPerpetualMarket
  | RawRewardMarket
  | RawPredictionMarket;

/** `GET /v0/markets` */
export interface RawMarketsResponse {
  markets: RawMarket[];
  cursor: string | null;
}

/** The `filters` query parameter, sent as URL-encoded JSON. */
export interface RawMarketFilters {
  prediction?: { status: RawMarketStatus | RawMarketStatus[] };
}

/** `GET /v0/markets/history` */
export interface RawMarketHistoryResponse {
  data: {
    markets: {
      id: string;
      history: {
        timestamp: string;
        depositApy?: number | null;
        borrowApy?: number | null;
        totalDeposit?: number | null;
        totalDepositUsd?: number | null;
      }[];
    }[];
  };
}
