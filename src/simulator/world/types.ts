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

export interface AssetSummary {
  id: string;
  chain: string;
  address: string | null;
  type: 'token' | 'stock' | 'rwa' | (string & {});
  name: string;
  symbol: string;
  imageUrl: string | null;
}

export interface Asset extends AssetSummary {
  decimals: number | null;
  tags: string[];
  description?: string | null;
  websiteUrl?: string | null;
  price: { usd: number; change24h: number | null; updatedAt: string } | null;
  marketCapUsd?: number | null;
}

/** How an asset's price moves: `base · exp(vol · noise(t))`, or a multiple of another asset's price. */
export interface PriceModel {
  /** Median USD price. */
  base: number;
  /** Log-volatility scale of the noise (0.001 for a stablecoin, 0.3 for SOL, 0.6 for a meme coin). */
  vol: number;
  /** Follows another asset: price = peg price · ratio · exp(vol · noise). */
  peg?: { assetId: string; ratio: number };
  /** A fixed price from `fixedFromMs` on (closed or settled outcome tokens); from the start when that is absent. */
  fixed?: number;
  fixedFromMs?: number;
  /** Mirrors another asset: price = 1 − that asset's price (the "no" token of a prediction market). */
  complementOf?: string;
  /** Clamp (outcome tokens live in [0.01, 0.99]). */
  min?: number;
  max?: number;
  /** Units in circulation, for marketCapUsd; undefined = no market cap. */
  supply?: number;
}

/** An asset as stored: the static public fields plus its price model. */
export interface AssetRecord extends Omit<Asset, 'price' | 'marketCapUsd'> {
  model: PriceModel;
}

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
