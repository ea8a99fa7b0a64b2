import type { Asset, AssetSearchPage, AssetSummary, AssetType, PriceHistory } from '../../models/asset.js';
import { array, distinctBy, isObject, mapEach, optNumber, optObject, optString, orNull, reqNumber, reqString } from '../read.js';
import type { RawAsset, RawAssetHistoryResponse, RawAssetSummary, RawSearchResponse } from './types.js';

const TYPES: Record<string, AssetType> = { token: 'TOKEN', stock: 'STOCK', rwa: 'RWA' };

export function assetType(raw: unknown): AssetType {
  return typeof raw === 'string' && Object.hasOwn(TYPES, raw) ? (TYPES[raw] ?? 'UNKNOWN') : 'UNKNOWN';
}

/** Domain → upstream spelling of the `type` filter; UNKNOWN has none. */
export function rawAssetType(type: AssetType): string | null {
  return type === 'UNKNOWN' ? null : type.toLowerCase();
}

function summaryFields(raw: RawAssetSummary): AssetSummary {
  const assetId = reqString(raw.id, 'id');
  const colon = assetId.indexOf(':');
  return {
    assetId,
    chain: optString(raw.chain) ?? (colon > 0 ? assetId.slice(0, colon) : ''),
    address: optString(raw.address),
    type: assetType(raw.type),
    rawType: optString(raw.type) ?? '',
    name: optString(raw.name) ?? '',
    symbol: optString(raw.symbol) ?? '',
    imageUrl: optString(raw.imageUrl),
  };
}

export function mapAssetSummary(raw: RawAssetSummary): AssetSummary | null {
  return orNull(() => (isObject(raw) ? summaryFields(raw) : null));
}

export function mapAsset(raw: RawAsset): Asset | null {
  return orNull(() => {
    if (!isObject(raw)) return null;
    const sent = optObject(raw.price);
    const price = sent
      ? orNull(() => ({
          usd: reqNumber(sent['usd'], 'price.usd'),
          change24h: optNumber(sent['change24h']),
          updatedAt: reqString(sent['updatedAt'], 'price.updatedAt'),
        }))
      : null;
    return {
      ...summaryFields(raw),
      decimals: optNumber(raw.decimals),
      tags: array(raw.tags).filter((t): t is string => typeof t === 'string'),
      description: optString(raw.description),
      websiteUrl: optString(raw.websiteUrl),
      price,
      // A price sent that breaks the contract (`"usd": "3012.55"`, a number as a string) is invalid
      // upstream data, reported on the field, not an asset without a price.
      ...(price === null && raw.price != null ? { priceInvalid: true } : {}),
      marketCapUsd: optNumber(raw.marketCapUsd),
    };
  });
}

export function mapSearch(raw: RawSearchResponse): AssetSearchPage {
  return {
    results: distinctBy(
      mapEach(raw.results, (r) => mapAssetSummary(r as RawAssetSummary)),
      (a) => a.assetId,
    ),
    cursor: typeof raw.cursor === 'string' && raw.cursor ? raw.cursor : null,
  };
}

export function mapPriceHistory(raw: RawAssetHistoryResponse, assetId: string): PriceHistory {
  return {
    assetId: optString(raw.id) ?? assetId,
    resolution: optString(raw.resolution) ?? '',
    points: mapEach(raw.points, (p) => {
      if (!isObject(p)) return null;
      return { timestamp: reqString(p['timestamp'], 'timestamp'), priceUsd: reqNumber(p['priceUsd'], 'priceUsd') };
    }),
  };
}
