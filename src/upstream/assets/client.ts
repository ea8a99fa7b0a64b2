import type { Resolution } from '../../models/common.js';
import type { Asset, AssetSearchPage, AssetType, PriceHistory } from '../../models/asset.js';
import { badBody, isUpstreamError, refused } from '../errors.js';
import { path, type HttpClient } from '../http.js';
import { isoTime } from '../read.js';
import { PRICE_HISTORY_RESOLUTIONS } from '../../models/history.js';
import { resolutionParam } from '../resolution.js';
import { isValidAssetId } from '../../models/asset-ids.js';
import { mapAsset, mapPriceHistory, mapSearch, rawAssetType } from './map.js';
import type { RawAsset, RawAssetHistoryResponse, RawSearchResponse } from './types.js';
import type { CallScope } from '../../operation/index.js';

export interface SearchAssetsParams {
  /** Matches name, symbol or tag, case-insensitive. */
  query: string;
  /** 1–100; default 20. */
  limit?: number;
  cursor?: string | null;
  types?: readonly AssetType[];
  scope?: CallScope;
}

export interface PriceHistoryParams {
  from: Date | string;
  to?: Date | string;
  /** FIVE_MINUTES, ONE_HOUR (default) or ONE_DAY. */
  resolution?: Resolution;
  scope?: CallScope;
}

export interface AssetsClient {
  searchAssets(params: SearchAssetsParams): Promise<AssetSearchPage>;
  /** Null when the upstream does not know the id. An id failing the contract's pattern is refused without a call. */
  getAsset(assetId: string, opts?: { scope?: CallScope }): Promise<Asset | null>;
  /** Null when the upstream does not know the id. */
  getPriceHistory(assetId: string, params: PriceHistoryParams): Promise<PriceHistory | null>;
}

export function createAssetsClient(http: HttpClient): AssetsClient {
  const service = http.service;

  function checkId(assetId: string): void {
    if (!isValidAssetId(assetId)) throw refused(service, 'not a valid asset id');
  }

  async function orNullOn404<T>(run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (error) {
      if (isUpstreamError(error, 'NOT_FOUND')) return null;
      throw error;
    }
  }

  return {
    async searchAssets(params) {
      const raw = await http.get<RawSearchResponse>('/v0/search', {
        route: 'GET /v0/search',
        scope: params.scope,
        query: {
          q: params.query,
          limit: params.limit,
          cursor: params.cursor ?? undefined,
          type: params.types?.map(rawAssetType).filter((t): t is string => t !== null),
        },
      });
      if (!Array.isArray(raw.results)) throw badBody(service, 'results is not a list');
      return mapSearch(raw);
    },

    async getAsset(assetId, opts = {}) {
      checkId(assetId);
      return orNullOn404(async () => {
        const raw = await http.get<RawAsset>(path`/v0/assets/${assetId}`, { route: 'GET /v0/assets/{id}', scope: opts.scope });
        const asset = mapAsset(raw);
        if (!asset) throw badBody(service, 'not an asset');
        return asset;
      });
    },

    async getPriceHistory(assetId, params) {
      checkId(assetId);
      const resolution = resolutionParam(service, 'price history', params.resolution, PRICE_HISTORY_RESOLUTIONS);
      return orNullOn404(async () => {
        const raw = await http.get<RawAssetHistoryResponse>(path`/v0/assets/${assetId}/history`, {
          route: 'GET /v0/assets/{id}/history',
          scope: params.scope,
          query: { from: isoTime(params.from), to: isoTime(params.to), resolution },
        });
        if (!Array.isArray(raw.points)) throw badBody(service, 'points is not a list');
        return mapPriceHistory(raw, assetId);
      });
    },
  };
}
