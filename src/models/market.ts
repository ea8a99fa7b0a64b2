import type { MarketStatus, MarketType, Provider, TokenRef } from './common.js';
import type { Passthrough } from './passthrough.js';

interface MarketBase {
  /** The upstream's id, e.g. `kamino.lend.<address>`. */
  marketId: string;
  type: MarketType;
  productName: string;
  /** `additionalData.marketName`, when the upstream gives one. */
  marketName: string | null;
  provider: Provider;
  websiteUrl: string | null;
  /** As sent, within the passthrough bounds; `Withheld` past them (see passthrough.ts). */
  additionalData: Passthrough;
  /** The prediction status for prediction markets; the position's `market.status` for markets reached through a position; otherwise null. */
  status: MarketStatus | null;
  /** Ready-made action links keyed by action name (`deposit`, `withdraw`, `openPosition` ...). */
  actions: Record<string, string>;
}

/** 30/90/180-day averages; a loop market's averages are deposit averages. */
export interface ApyAverages {
  deposit30d: number | null;
  deposit90d: number | null;
  deposit180d: number | null;
  borrow30d: number | null;
  borrow90d: number | null;
  borrow180d: number | null;
}

export interface MarketLimits {
  maxDeposit: number | null;
  maxBorrow: number | null;
  /** Ratios. */
  maxLtv: number | null;
  liquidationLtv: number | null;
  liquidationPenalty: number | null;
}

export type IncentiveSide = 'DEPOSIT' | 'BORROW';

/** An incentive paid on top of the base APY. */
export interface MarketIncentive {
  side: IncentiveSide;
  apy: number;
  token: TokenRef;
}

export interface YieldMarket extends MarketBase {
  type: 'YIELD';
  token: TokenRef;
  depositApy: number;
  baseDepositApy: number;
  apyAverages: ApyAverages;
  totalDeposit: number | null;
  totalDepositUsd: number | null;
  rewards: MarketIncentive[];
}

export interface LendingMarket extends MarketBase {
  type: 'LENDING';
  token: TokenRef;
  borrowToken: TokenRef | null;
  depositApy: number;
  baseDepositApy: number;
  borrowApy: number;
  baseBorrowApy: number;
  apyAverages: ApyAverages;
  totalDeposit: number;
  totalDepositUsd: number | null;
  totalBorrow: number;
  totalBorrowUsd: number | null;
  limits: MarketLimits;
  rewards: MarketIncentive[];
}

export interface LoopMarket extends MarketBase {
  type: 'LOOP';
  tokenA: TokenRef;
  tokenB: TokenRef;
  depositApy: number;
  apyAverages: ApyAverages;
  maxLeverage: number;
  /** `maxLtv` and `liquidationLtv` are set; the rest is null. */
  limits: MarketLimits;
}

export interface PerpetualMarket extends MarketBase {
  type: 'PERPETUAL';
  tokenA: TokenRef;
  tokenB: TokenRef;
  liquidity: { longUsd: number; shortUsd: number };
  maxLeverage: number;
}

export interface RewardMarket extends MarketBase {
  type: 'REWARD';
  token: TokenRef;
  rewardApy: number;
  endsAt: string | null;
}

export interface PredictionMarket extends MarketBase {
  type: 'PREDICTION';
  title: string;
  subtitle: string | null;
  result: string | null;
  volume: number | null;
  openInterest: number | null;
  yesBid: number | null;
  yesAsk: number | null;
  noBid: number | null;
  noAsk: number | null;
  /** ISO 8601. */
  openTime: string | null;
  closeTime: string | null;
  expirationTime: string | null;
  yesToken: TokenRef | null;
  noToken: TokenRef | null;
}

export type Market = YieldMarket | LendingMarket | LoopMarket | PerpetualMarket | RewardMarket | PredictionMarket;

export interface MarketPage {
  markets: Market[];
  /** Opaque; null when there are no more pages. */
  cursor: string | null;
  /** Records the page sent that could not be read (null, or missing or mistyped what the contract requires); markets of unknown types are not counted. */
  unreadable?: number;
  /** Size of the page's body in bytes. */
  bytes?: number;
}

export interface MarketHistoryPoint {
  timestamp: string;
  depositApy: number | null;
  borrowApy: number | null;
  totalDeposit: number | null;
  totalDepositUsd: number | null;
}

export interface MarketHistory {
  marketId: string;
  points: MarketHistoryPoint[];
}

/** The token references of a market, for the assets data source and the metadata fallback. */
export function marketTokens(market: Market): TokenRef[] {
  switch (market.type) {
    case 'YIELD':
      return [market.token, ...market.rewards.map((r) => r.token)];
    case 'LENDING':
      return [market.token, ...(market.borrowToken ? [market.borrowToken] : []), ...market.rewards.map((r) => r.token)];
    case 'LOOP':
    case 'PERPETUAL':
      return [market.tokenA, market.tokenB];
    case 'REWARD':
      return [market.token];
    case 'PREDICTION':
      return [market.yesToken, market.noToken].filter((t): t is TokenRef => t !== null);
  }
}
