/**
 * Shapes of the records the simulator serves (docs/upstream.md sections 2 and 3), plus internal models.
 *
 * A copy, on purpose: the gateway's raw contract types live in src/upstream/<service>/types.ts, and
 * these are an independent reading of the same contract. Were the simulator to import the gateway's
 * types, a misreading of the contract would sit on both sides and no test would see it drift. Keep them
 * apart; change both only where the contract changes.
 */

export type MarketType = 'yield' | 'lending' | 'loop' | 'perpetual' | 'reward' | 'prediction';
export const MARKET_TYPES: readonly MarketType[] = ['yield', 'lending', 'loop', 'perpetual', 'reward', 'prediction'];
export type MarketStatus = 'open' | 'closed' | 'settled';
export const MARKET_STATUSES: readonly MarketStatus[] = ['open', 'closed', 'settled'];

export interface Token {
  address: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  name?: string | null;
}

export interface Provider {
  id: string;
  name: string;
  icon: string;
}

export interface Blink {
  blinkUrl: string;
}

export interface RewardApy {
  type: 'deposit' | 'borrow';
  apy: number;
  token: Token;
}

interface MarketBase {
  id: string;
  type: MarketType;
  productName: string;
  provider: Provider;
  websiteUrl?: string;
  additionalData?: { marketName?: string; [k: string]: unknown };
}

export interface YieldMarket extends MarketBase {
  type: 'yield';
  token: Token;
  depositApy: number;
  baseDepositApy: number;
  baseDepositApy30d?: number;
  baseDepositApy90d?: number;
  baseDepositApy180d?: number;
  totalDeposit?: number;
  totalDepositUsd?: number;
  rewards?: RewardApy[];
  actions: { deposit?: Blink; withdraw?: Blink; claimRewards?: Blink };
}

export interface LendingMarket extends MarketBase {
  type: 'lending';
  token: Token;
  borrowToken?: Token;
  depositApy: number;
  baseDepositApy: number;
  baseDepositApy30d?: number;
  baseDepositApy90d?: number;
  baseDepositApy180d?: number;
  borrowApy: number;
  baseBorrowApy: number;
  baseBorrowApy30d?: number;
  baseBorrowApy90d?: number;
  baseBorrowApy180d?: number;
  totalDeposit: number;
  totalDepositUsd?: number;
  totalBorrow: number;
  totalBorrowUsd?: number;
  maxDeposit?: number;
  maxBorrow: number;
  maxLtv?: number;
  liquidationLtv?: number;
  liquidationPenalty?: number;
  rewards?: RewardApy[];
  actions: {
    deposit?: Blink;
    withdraw?: Blink;
    borrow?: Blink;
    repay?: Blink;
    repayWithCollateral?: Blink;
    claimRewards?: Blink;
  };
}

export interface LoopMarket extends MarketBase {
  type: 'loop';
  tokenA: Token;
  tokenB: Token;
  depositApy: number;
  depositApy30d?: number;
  depositApy90d?: number;
  depositApy180d?: number;
  maxLeverage: number;
  maxLtv: number;
  liquidationLtv: number;
  actions: { setup?: Blink; deposit?: Blink; withdraw?: Blink };
}

export interface PerpetualMarket extends MarketBase {
  type: 'perpetual';
  tokenA: Token;
  tokenB: Token;
  liquidity: { longUsd: number; shortUsd: number };
  maxLeverage: number;
  actions: { setup?: Blink; openPosition?: Blink; closePosition?: Blink };
}

export interface RewardMarket extends MarketBase {
  type: 'reward';
  token: Token;
  rewardApy: number;
  endsAt?: string;
  actions: { claimRewards?: Blink };
}

export interface PredictionMarket extends MarketBase {
  type: 'prediction';
  title: string;
  subtitle?: string;
  status: MarketStatus;
  result?: string;
  volume?: number;
  openInterest?: number;
  yesBid?: number;
  yesAsk?: number;
  noBid?: number;
  noAsk?: number;
  openTime?: number;
  closeTime?: number;
  expirationTime?: number;
  yesToken?: Token;
  noToken?: Token;
}

export type Market = YieldMarket | LendingMarket | LoopMarket | PerpetualMarket | RewardMarket | PredictionMarket;
export type WithStatus<M> = M & { status: MarketStatus };
