import { LRUCache } from 'lru-cache';
import type { Market, MarketType, Provider } from '../../models/index.js';

/** Distinct filters whose matches one snapshot keeps (a page is then a slice of a ready list). */
const MATCH_CACHE_SIZE = 512;
/**
 * Markets the pages one snapshot keeps refer to, over all its pages (references to the snapshot's
 * own records, plus what the schema keeps per page: its edges and their cursors).
 */
const PAGE_CACHE_MARKETS = 5_000;

/** One page of the markets a filter selects in one snapshot: kept by the snapshot and handed to every request for it, never changed. */
export interface ListingSlice {
  /** The markets after the anchor, in the upstream's order. */
  readonly markets: readonly Market[];
  readonly hasNextPage: boolean;
  /** Some market of the listing comes before this page. */
  readonly hasPreviousPage: boolean;
  /** How many markets of the listing held the filter selects, over all pages (counted from the index, no upstream call). */
  readonly totalCount: number;
}

/** One read of the whole listing, indexed for lookups by id and for the listing's filters. */
export interface Snapshot {
  /** The whole listing (prediction markets of every status), in the upstream's order. */
  list: readonly Market[];
  markets: ReadonlyMap<string, Market>;
  /** A market's place in `list`. */
  ordinal: ReadonlyMap<string, number>;
  providers: ReadonlyMap<string, Provider>;
  /** Places in `list`, ascending, by type, provider id and token address (token, tokenA, tokenB). */
  byType: ReadonlyMap<MarketType, readonly number[]>;
  byProvider: ReadonlyMap<string, readonly number[]>;
  byAsset: ReadonlyMap<string, readonly number[]>;
  /** Places a filter selects, by the filter's canonical key, filled as filters are asked for. */
  matches: LRUCache<string, readonly number[]>;
  /**
   * Pages served, by filter, anchor and size: the same page is the same object for as long as the
   * snapshot keeps it, so what a page costs to present (its edges, their signed cursors) is made once
   * per page and snapshot rather than per edge and request. Read only.
   */
  pages: LRUCache<string, ListingSlice>;
  builtAt: number;
  /** Body bytes the read took. */
  bytes: number;
}

/** The token addresses the listing's `asset` filter matches: token, tokenA, tokenB. */
export function filterTokenAddresses(market: Market): string[] {
  switch (market.type) {
    case 'YIELD':
    case 'LENDING':
    case 'REWARD':
      return [market.token.address];
    case 'LOOP':
    case 'PERPETUAL':
      return [market.tokenA.address, market.tokenB.address];
    case 'PREDICTION':
      return [];
  }
}

function append<K>(map: Map<K, number[]>, key: K, place: number): void {
  const places = map.get(key);
  if (!places) map.set(key, [place]);
  else if (places.at(-1) !== place) places.push(place);
}

export function buildSnapshot(list: Market[], builtAt: number, bytes: number): Snapshot {
  const markets = new Map<string, Market>();
  const ordinal = new Map<string, number>();
  const providers = new Map<string, Provider>();
  const byType = new Map<MarketType, number[]>();
  const byProvider = new Map<string, number[]>();
  const byAsset = new Map<string, number[]>();
  list.forEach((market, place) => {
    markets.set(market.marketId, market);
    ordinal.set(market.marketId, place);
    if (!providers.has(market.provider.providerId)) providers.set(market.provider.providerId, market.provider);
    append(byType, market.type, place);
    append(byProvider, market.provider.providerId, place);
    for (const address of filterTokenAddresses(market)) append(byAsset, address, place);
  });
  const matches = new LRUCache<string, readonly number[]>({ max: MATCH_CACHE_SIZE });
  const pages = new LRUCache<string, ListingSlice>({ max: MATCH_CACHE_SIZE, maxSize: PAGE_CACHE_MARKETS, sizeCalculation: (slice) => slice.markets.length + 1 });
  return { list, markets, ordinal, providers, byType, byProvider, byAsset, matches, pages, builtAt, bytes };
}
