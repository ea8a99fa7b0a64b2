import type { Market } from '../../models/market.js';
import type { Position, PositionHistory, PositionReward } from '../../models/position.js';
import { boundedPassthrough } from '../../models/passthrough.js';
import { assetIdForSolana } from '../../models/asset-ids.js';
import { isObject, mapEach, Malformed, optNumber, optObject, optString, orNull, reqNumber, reqString, type Raw } from '../read.js';
import { mapMarket, marketStatus, marketType } from './map-market.js';
import { mapActions, mapToken, optToken } from './map-parts.js';
import type { RawMarket, RawPosition, RawPositionHistoryResponse } from './types.js';

/** Positions and their histories, raw to the gateway's models; the markets they embed are mapped by map-market.ts. */

function mapPositionRewards(raw: unknown): PositionReward[] {
  return mapEach(raw, (r) => {
    if (!isObject(r)) return null;
    const tokenAddress = reqString(r['tokenAddress'], 'rewards.tokenAddress');
    return {
      assetId: assetIdForSolana(tokenAddress),
      tokenAddress,
      amount: reqNumber(r['amount'], 'rewards.amount'),
      amountUsd: optNumber(r['amountUsd']),
    };
  });
}

/** Maps one position; null for an unknown type or a record missing what the contract requires. */
export function mapPosition(raw: RawPosition | null | undefined): Position | null {
  return orNull(() => mapPositionStrict(raw));
}

function embeddedMarket(raw: unknown): Market | null {
  if (!isObject(raw)) return null;
  return mapMarket(raw as unknown as RawMarket, marketStatus(raw['status']));
}

/** The embedded market, when it is of the type the position says. */
function marketOf<T extends Market['type']>(raw: unknown, type: T): Extract<Market, { type: T }> | null {
  const market = embeddedMarket(raw);
  return market && market.type === type ? (market as Extract<Market, { type: T }>) : null;
}

function mapPositionStrict(raw: RawPosition | null | undefined): Position | null {
  if (!isObject(raw)) return null;
  const type = marketType(raw.type);
  if (!type) return null;
  const base = {
    positionId: reqString(raw.id, 'id'),
    ownerAddress: reqString(raw.ownerAddress, 'ownerAddress'),
    marketId: reqString(raw.marketId, 'marketId'),
    amount: reqNumber(raw.amount, 'amount'),
    amountUsd: optNumber(raw.amountUsd),
    websiteUrl: optString(raw.websiteUrl),
    bundleId: optString(raw.bundleId),
    rewards: mapPositionRewards((raw as Raw)['rewards']),
    additionalData: boundedPassthrough(optObject(raw.additionalData)),
    actions: mapActions((raw as Raw)['actions']),
  };

  switch (raw.type) {
    case 'lending': {
      const side = raw.side === 'deposit' ? 'DEPOSIT' : raw.side === 'borrow' ? 'BORROW' : null;
      if (!side) throw new Malformed('side');
      const ltv = optNumber(raw.ltv);
      return {
        ...base,
        type: 'LENDING',
        market: marketOf(raw.market, 'LENDING'),
        side,
        ltv: ltv === null ? null : ltv / 100,
        liquidationPrice: optNumber(raw.liquidationPrice),
      };
    }
    case 'yield':
      return { ...base, type: 'YIELD', market: marketOf(raw.market, 'YIELD') };
    case 'loop':
      return {
        ...base,
        type: 'LOOP',
        market: marketOf(raw.market, 'LOOP'),
        amountTokenA: reqNumber(raw.amountTokenA, 'amountTokenA'),
        amountTokenB: reqNumber(raw.amountTokenB, 'amountTokenB'),
        amountTokenAUsd: optNumber(raw.amountTokenAUsd),
        amountTokenBUsd: optNumber(raw.amountTokenBUsd),
        ltv: optNumber(raw.ltv),
        liquidationPrice: optNumber(raw.liquidationPrice),
        leverage: optNumber(raw.leverage),
      };
    case 'perpetual': {
      const side = raw.side === 'long' ? 'LONG' : raw.side === 'short' ? 'SHORT' : null;
      if (!side) throw new Malformed('side');
      return {
        ...base,
        type: 'PERPETUAL',
        market: marketOf(raw.market, 'PERPETUAL'),
        side,
        leverage: reqNumber(raw.leverage, 'leverage'),
        entryPrice: reqNumber(raw.entryPrice, 'entryPrice'),
        markPrice: optNumber(raw.markPrice),
      };
    }
    case 'reward': {
      const parent = optObject(raw.position);
      return {
        ...base,
        type: 'REWARD',
        market: embeddedMarket(raw.market),
        token: mapToken(raw.token),
        parentPositionId: optString(parent?.['id']),
        parentPositionType: marketType(parent?.['type']),
      };
    }
    case 'prediction': {
      const side = raw.side === 'yes' ? 'YES' : raw.side === 'no' ? 'NO' : null;
      if (!side) throw new Malformed('side');
      const pnl = optObject(raw.pnl);
      return {
        ...base,
        type: 'PREDICTION',
        market: marketOf(raw.market, 'PREDICTION'),
        side,
        token: optToken(raw.token, 'token'),
        costBasis: { averageEntryPrice: optNumber(raw.costBasisAvg), totalCapitalCommitted: optNumber(raw.costBasisTotal) },
        pnl: pnl
          ? {
              total: reqNumber(pnl['total'], 'pnl.total'),
              realized: reqNumber(pnl['realized'], 'pnl.realized'),
              unrealized: reqNumber(pnl['unrealized'], 'pnl.unrealized'),
              unrealizedPct: optNumber(pnl['unrealizedPct']),
            }
          : null,
      };
    }
    default:
      return null;
  }
}

export function mapPositions(raw: unknown): Position[] {
  return mapEach(raw, (p) => mapPosition(p as RawPosition));
}

export function mapPositionHistory(raw: RawPositionHistoryResponse): PositionHistory[] {
  const data = optObject(raw.data);
  return mapEach(data?.['positions'], (p) => {
    if (!isObject(p)) return null;
    return {
      positionId: reqString(p['id'], 'id'),
      type: marketType(p['type']),
      marketId: optString(p['marketId']) ?? '',
      points: mapEach(p['history'], (h) => {
        if (!isObject(h)) return null;
        return {
          timestamp: reqString(h['timestamp'], 'timestamp'),
          amount: optNumber(h['amount']),
          amountUsd: optNumber(h['amountUsd']),
        };
      }),
    };
  });
}
