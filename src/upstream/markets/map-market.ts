import type { MarketStatus, MarketType } from '../../models/common.js';
import type {
  ApyAverages,
  LendingMarket,
  LoopMarket,
  Market,
  MarketHistory,
  MarketLimits,
  PerpetualMarket,
  PredictionMarket,
  RewardMarket,
  YieldMarket,
} from '../../models/market.js';
import { boundedPassthrough } from '../../models/passthrough.js';
import { isObject, isoFromSeconds, mapEach, optNumber, optObject, optString, orNull, reqNumber, reqString, type Raw } from '../read.js';
import { mapActions, mapIncentives, mapProvider, mapToken, optToken } from './map-parts.js';
import type { RawMarket, RawMarketHistoryResponse } from './types.js';

/** Markets and their histories, raw to the gateway's models, with the spellings of their types and statuses both ways. */

const MARKET_TYPES: Record<string, MarketType> = {
  yield: 'YIELD',
  lending: 'LENDING',
  loop: 'LOOP',
  perpetual: 'PERPETUAL',
  reward: 'REWARD',
  prediction: 'PREDICTION',
};

const STATUSES: Record<string, MarketStatus> = { open: 'OPEN', closed: 'CLOSED', settled: 'SETTLED' };

export function marketType(raw: unknown): MarketType | null {
  return typeof raw === 'string' && Object.hasOwn(MARKET_TYPES, raw) ? (MARKET_TYPES[raw] ?? null) : null;
}

export function marketStatus(raw: unknown): MarketStatus | null {
  return typeof raw === 'string' && Object.hasOwn(STATUSES, raw) ? (STATUSES[raw] ?? null) : null;
}

/** Domain → upstream spelling of the list and filter parameters. */
export function rawMarketType(type: MarketType): string {
  return type.toLowerCase();
}

export function rawMarketStatus(status: MarketStatus): 'open' | 'closed' | 'settled' {
  return status.toLowerCase() as 'open' | 'closed' | 'settled';
}

const NO_LIMITS: MarketLimits = { maxDeposit: null, maxBorrow: null, maxLtv: null, liquidationLtv: null, liquidationPenalty: null };
const NO_AVERAGES: ApyAverages = { deposit30d: null, deposit90d: null, deposit180d: null, borrow30d: null, borrow90d: null, borrow180d: null };

/**
 * Maps one listed (or embedded) market. Returns null for a type the gateway does not know or a
 * record missing what the contract requires: the listing drops it and never fails because of it.
 * `status` is the position's `market.status` when the market is reached through a position.
 */
export function mapMarket(raw: RawMarket | null | undefined, status?: MarketStatus | null): Market | null {
  return orNull(() => mapMarketStrict(raw, status ?? null));
}

function mapMarketStrict(raw: RawMarket | null | undefined, status: MarketStatus | null): Market | null {
  if (!isObject(raw)) return null;
  const type = marketType(raw.type);
  if (!type) return null;
  const additionalData = optObject(raw.additionalData);
  const base = {
    marketId: reqString(raw.id, 'id'),
    productName: optString(raw.productName) ?? '',
    marketName: optString(additionalData?.['marketName']),
    provider: mapProvider(raw.provider),
    websiteUrl: optString(raw.websiteUrl),
    additionalData: boundedPassthrough(additionalData),
    status,
    actions: mapActions((raw as Raw)['actions']),
  };

  switch (raw.type) {
    case 'yield':
      return {
        ...base,
        type: 'YIELD',
        token: mapToken(raw.token),
        depositApy: reqNumber(raw.depositApy, 'depositApy'),
        baseDepositApy: reqNumber(raw.baseDepositApy, 'baseDepositApy'),
        apyAverages: {
          ...NO_AVERAGES,
          deposit30d: optNumber(raw.baseDepositApy30d),
          deposit90d: optNumber(raw.baseDepositApy90d),
          deposit180d: optNumber(raw.baseDepositApy180d),
        },
        totalDeposit: optNumber(raw.totalDeposit),
        totalDepositUsd: optNumber(raw.totalDepositUsd),
        rewards: mapIncentives(raw.rewards),
      } satisfies YieldMarket;
    case 'lending':
      return {
        ...base,
        type: 'LENDING',
        token: mapToken(raw.token),
        borrowToken: optToken(raw.borrowToken, 'borrowToken'),
        depositApy: reqNumber(raw.depositApy, 'depositApy'),
        baseDepositApy: reqNumber(raw.baseDepositApy, 'baseDepositApy'),
        borrowApy: reqNumber(raw.borrowApy, 'borrowApy'),
        baseBorrowApy: reqNumber(raw.baseBorrowApy, 'baseBorrowApy'),
        apyAverages: {
          deposit30d: optNumber(raw.baseDepositApy30d),
          deposit90d: optNumber(raw.baseDepositApy90d),
          deposit180d: optNumber(raw.baseDepositApy180d),
          borrow30d: optNumber(raw.baseBorrowApy30d),
          borrow90d: optNumber(raw.baseBorrowApy90d),
          borrow180d: optNumber(raw.baseBorrowApy180d),
        },
        totalDeposit: reqNumber(raw.totalDeposit, 'totalDeposit'),
        totalDepositUsd: optNumber(raw.totalDepositUsd),
        totalBorrow: reqNumber(raw.totalBorrow, 'totalBorrow'),
        totalBorrowUsd: optNumber(raw.totalBorrowUsd),
        limits: {
          maxDeposit: optNumber(raw.maxDeposit),
          maxBorrow: optNumber(raw.maxBorrow),
          maxLtv: optNumber(raw.maxLtv),
          liquidationLtv: optNumber(raw.liquidationLtv),
          liquidationPenalty: optNumber(raw.liquidationPenalty),
        },
        rewards: mapIncentives(raw.rewards),
      } satisfies LendingMarket;
    case 'loop':
      return {
        ...base,
        type: 'LOOP',
        tokenA: mapToken(raw.tokenA, 'tokenA'),
        tokenB: mapToken(raw.tokenB, 'tokenB'),
        depositApy: reqNumber(raw.depositApy, 'depositApy'),
        apyAverages: {
          ...NO_AVERAGES,
          deposit30d: optNumber(raw.depositApy30d),
          deposit90d: optNumber(raw.depositApy90d),
          deposit180d: optNumber(raw.depositApy180d),
        },
        maxLeverage: reqNumber(raw.maxLeverage, 'maxLeverage'),
        limits: { ...NO_LIMITS, maxLtv: optNumber(raw.maxLtv), liquidationLtv: optNumber(raw.liquidationLtv) },
      } satisfies LoopMarket;
    case 'perpetual': {
      const liquidity = optObject(raw.liquidity);
      return {
        ...base,
        type: 'PERPETUAL',
        tokenA: mapToken(raw.tokenA, 'tokenA'),
        tokenB: mapToken(raw.tokenB, 'tokenB'),
        liquidity: {
          longUsd: reqNumber(liquidity?.['longUsd'], 'liquidity.longUsd'),
          shortUsd: reqNumber(liquidity?.['shortUsd'], 'liquidity.shortUsd'),
        },
        maxLeverage: reqNumber(raw.maxLeverage, 'maxLeverage'),
      } satisfies PerpetualMarket;
    }
    case 'reward':
      return {
        ...base,
        type: 'REWARD',
        token: mapToken(raw.token),
        rewardApy: reqNumber(raw.rewardApy, 'rewardApy'),
        endsAt: optString(raw.endsAt),
      } satisfies RewardMarket;
    case 'prediction':
      return {
        ...base,
        type: 'PREDICTION',
        // A prediction market's own status is the truth; a position's copy agrees with it.
        status: marketStatus(raw.status) ?? status,
        title: reqString(raw.title, 'title'),
        subtitle: optString(raw.subtitle),
        result: optString(raw.result),
        volume: optNumber(raw.volume),
        openInterest: optNumber(raw.openInterest),
        yesBid: optNumber(raw.yesBid),
        yesAsk: optNumber(raw.yesAsk),
        noBid: optNumber(raw.noBid),
        noAsk: optNumber(raw.noAsk),
        openTime: isoFromSeconds(raw.openTime),
        closeTime: isoFromSeconds(raw.closeTime),
        expirationTime: isoFromSeconds(raw.expirationTime),
        yesToken: optToken(raw.yesToken, 'yesToken'),
        noToken: optToken(raw.noToken, 'noToken'),
      } satisfies PredictionMarket;
    default:
      return null;
  }
}

export function mapMarkets(raw: unknown): Market[] {
  return mapEach(raw, (m) => mapMarket(m as RawMarket));
}

export function mapMarketHistory(raw: RawMarketHistoryResponse): MarketHistory[] {
  const data = optObject(raw.data);
  return mapEach(data?.['markets'], (m) => {
    if (!isObject(m)) return null;
    return {
      marketId: reqString(m['id'], 'id'),
      points: mapEach(m['history'], (p) => {
        if (!isObject(p)) return null;
        return {
          timestamp: reqString(p['timestamp'], 'timestamp'),
          depositApy: optNumber(p['depositApy']),
          borrowApy: optNumber(p['borrowApy']),
          totalDeposit: optNumber(p['totalDeposit']),
          totalDepositUsd: optNumber(p['totalDepositUsd']),
        };
      }),
    };
  });
}
