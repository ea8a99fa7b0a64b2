import type { MarketStatus, MarketType, Resolution } from '../../models/common.js';
import type { MarketHistory, MarketPage } from '../../models/market.js';
import type { Position, PositionHistory } from '../../models/position.js';
import { badBody } from '../errors.js';
import type { HttpClient } from '../http.js';
import { distinctBy, isObject, isoTime } from '../read.js';
import { MARKET_HISTORY_RESOLUTIONS, POSITION_HISTORY_RESOLUTIONS } from '../../models/history.js';
import { resolutionParam } from '../resolution.js';
import { positionsBodyLimit } from '../body.js';
import { mapMarketHistory, mapMarkets, marketType, rawMarketStatus, rawMarketType } from './map-market.js';
import { mapPositionHistory, mapPositions } from './map-position.js';
import type {
  RawMarketFilters,
  RawMarketHistoryResponse,
  RawMarketsResponse,
  RawPositionHistoryResponse,
  RawPositionsResponse,
} from './types.js';
import type { CallScope } from '../../operation/index.js';

/** Most market ids one history call takes. */
export const MAX_HISTORY_MARKETS = 50;
/** Most wallets one positions call takes under the contract; the production service takes 1. */
export const MAX_POSITION_WALLETS = 25;

export interface ListMarketsParams {
  types?: readonly MarketType[];
  providers?: readonly string[];
  /** Token addresses: markets whose token, tokenA or tokenB is one of them. */
  assets?: readonly string[];
  /** Statuses of prediction markets; the upstream's default is OPEN. */
  predictionStatus?: readonly MarketStatus[];
  cursor?: string | null;
  /** 1–200; default 50. */
  limit?: number;
  scope?: CallScope;
}

export interface MarketHistoryParams {
  /** At most 50. */
  marketIds: readonly string[];
  startTime: Date | string;
  endTime?: Date | string;
  /** ONE_HOUR or ONE_DAY (default). */
  resolution?: Resolution;
  scope?: CallScope;
}

export interface PositionsParams {
  /** At most 25; batch them by the configured batch size. */
  walletAddresses: readonly string[];
  type?: MarketType;
  marketStatus?: MarketStatus;
  bundleIds?: readonly string[];
  scope?: CallScope;
}

export interface PositionHistoryParams {
  walletAddress: string;
  startTime: Date | string;
  endTime?: Date | string;
  positionIds?: readonly string[];
  /** Any; default ONE_HOUR. */
  resolution?: Resolution;
  scope?: CallScope;
}

export interface MarketsClient {
  /** One page of the listing; markets of unknown types are left out. */
  listMarkets(params?: ListMarketsParams): Promise<MarketPage>;
  /** APY and deposit history of up to 50 markets in one call. */
  getMarketHistory(params: MarketHistoryParams): Promise<MarketHistory[]>;
  /** Positions of up to 25 wallets (not paginated); positions of unknown types are left out. */
  getPositions(params: PositionsParams): Promise<Position[]>;
  /** Value snapshots of one wallet's positions. */
  getPositionHistory(params: PositionHistoryParams): Promise<PositionHistory[]>;
}

/** Records that are not of a type the gateway does not know: those left out by design are not unreadable. */
function knownTypes(records: readonly unknown[]): number {
  return records.filter((r) => !(isObject(r) && typeof r['type'] === 'string' && marketType(r['type']) === null)).length;
}

export function createMarketsClient(http: HttpClient): MarketsClient {
  const service = http.service;

  // The wallets' positions as the transport hands the answer over (http.ts `map`): no `await` step per call.
  const positions = (raw: RawPositionsResponse): Position[] => {
    if (!Array.isArray(raw.positions)) throw badBody(service, 'positions is not a list');
    const mapped = mapPositions(raw.positions);
    // When most positions (of types the gateway knows) cannot be read, the answer is broken: a wallet
    // worth $0 would be a lie, an error is not.
    const known = knownTypes(raw.positions);
    if (known > 0 && mapped.length * 2 <= known) throw badBody(service, `${known - mapped.length} of ${known} positions unreadable`);
    // The wallet's sums (totalValueUsd) count each position once.
    return distinctBy(mapped, (p) => `${p.ownerAddress} ${p.positionId}`);
  };

  return {
    async listMarkets(params = {}) {
      const filters: RawMarketFilters | undefined = params.predictionStatus?.length
        ? { prediction: { status: params.predictionStatus.map(rawMarketStatus) } }
        : undefined;
      let bytes = 0;
      const raw = await http.get<RawMarketsResponse>('/v0/markets', {
        route: 'GET /v0/markets',
        scope: params.scope,
        onBytes: (n) => (bytes = n),
        query: {
          type: params.types?.map(rawMarketType),
          provider: params.providers,
          asset: params.assets,
          cursor: params.cursor ?? undefined,
          limit: params.limit,
          filters: filters ? JSON.stringify(filters) : undefined,
        },
      });
      if (!Array.isArray(raw.markets)) throw badBody(service, 'markets is not a list');
      const mapped = mapMarkets(raw.markets);
      return {
        markets: distinctBy(mapped, (m) => m.marketId),
        cursor: typeof raw.cursor === 'string' && raw.cursor ? raw.cursor : null,
        unreadable: knownTypes(raw.markets) - mapped.length,
        bytes,
      };
    },

    async getMarketHistory(params) {
      if (params.marketIds.length > MAX_HISTORY_MARKETS) {
        throw new RangeError(`getMarketHistory takes at most ${MAX_HISTORY_MARKETS} market ids; got ${params.marketIds.length}`);
      }
      if (params.marketIds.length === 0) return [];
      const raw = await http.get<RawMarketHistoryResponse>('/v0/markets/history', {
        route: 'GET /v0/markets/history',
        scope: params.scope,
        query: {
          marketIds: params.marketIds,
          startTime: isoTime(params.startTime),
          endTime: isoTime(params.endTime),
          resolution: resolutionParam(service, 'market history', params.resolution, MARKET_HISTORY_RESOLUTIONS),
        },
      });
      if (!isObject(raw.data)) throw badBody(service, 'history data missing');
      return mapMarketHistory(raw);
    },

    getPositions(params) {
      if (params.walletAddresses.length > MAX_POSITION_WALLETS) {
        return Promise.reject(new RangeError(`getPositions takes at most ${MAX_POSITION_WALLETS} wallets; got ${params.walletAddresses.length}`));
      }
      if (params.walletAddresses.length === 0) return Promise.resolve([]);
      return http.get('/v0/positions/owners', {
        route: 'GET /v0/positions/owners',
        scope: params.scope,
        maxBytes: positionsBodyLimit(params.walletAddresses.length),
        query: {
          walletAddresses: params.walletAddresses,
          type: params.type ? rawMarketType(params.type) : undefined,
          'market.status': params.marketStatus ? rawMarketStatus(params.marketStatus) : undefined,
          bundleIds: params.bundleIds,
        },
        map: positions,
      });
    },

    async getPositionHistory(params) {
      const raw = await http.get<RawPositionHistoryResponse>('/v0/positions/history', {
        route: 'GET /v0/positions/history',
        scope: params.scope,
        query: {
          walletAddress: params.walletAddress,
          startTime: isoTime(params.startTime),
          endTime: isoTime(params.endTime),
          positionIds: params.positionIds,
          resolution: resolutionParam(service, 'position history', params.resolution, POSITION_HISTORY_RESOLUTIONS),
        },
      });
      if (!isObject(raw.data)) throw badBody(service, 'history data missing');
      return mapPositionHistory(raw);
    },
  };
}
