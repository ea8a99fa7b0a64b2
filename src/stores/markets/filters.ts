import type { Market, MarketStatus, MarketType } from '../../models/index.js';
import { filterTokenAddresses, type ListingSlice, type Snapshot } from './snapshot.js';

export type { ListingSlice } from './snapshot.js';

/** The prediction statuses listed when a filter names none: the upstream's default. */
const DEFAULT_PREDICTION_STATUS: readonly MarketStatus[] = ['OPEN'];

/**
 * A filter of the listing, with the upstream's meaning: values within a field combine with OR, fields
 * with AND; an absent or empty field does not filter. `assets` are token addresses matched against a
 * market's token, tokenA or tokenB; `predictionStatus` (default OPEN) filters prediction markets only.
 */
export interface ListingFilter {
  types?: readonly MarketType[];
  providers?: readonly string[];
  assets?: readonly string[];
  predictionStatus?: readonly MarketStatus[];
}


/** The ascending union of some places lists (values of one filter field). */
function union(lists: (readonly number[] | undefined)[]): number[] {
  const present = lists.filter((l): l is readonly number[] => l !== undefined && l.length > 0);
  if (present.length === 1) return present[0]!.slice();
  return [...new Set(present.flat())].sort((a, b) => a - b);
}

/** A filter's key: each field's distinct values sorted, so that filters selecting alike share their matches and pages. */
const filterKey = (f: ListingFilter): string => `${fieldKey(f.types)}|${fieldKey(f.providers)}|${fieldKey(f.assets)}|${fieldKey(f.predictionStatus)}`;

// Every request of a screen builds its filter anew (most fields absent or of one value): those are
// spelled without a Set, a sort or the arrays of the general case.
function fieldKey(values: readonly string[] | undefined): string {
  if (!values || values.length === 0) return '';
  if (values.length === 1) return values[0]!;
  return [...new Set(values)].sort().join(',');
}

/** The places of `list` a filter selects, ascending: the smallest field's candidates, checked against every field. */
function select(snapshot: Snapshot, filter: ListingFilter, key: string): readonly number[] {
  const cached = snapshot.matches.get(key);
  if (cached) return cached;

  const types = filter.types?.length ? new Set(filter.types) : null;
  const providers = filter.providers?.length ? new Set(filter.providers) : null;
  const assets = filter.assets?.length ? new Set(filter.assets) : null;
  const statuses = new Set(filter.predictionStatus?.length ? filter.predictionStatus : DEFAULT_PREDICTION_STATUS);

  const candidates: number[][] = [];
  if (types) candidates.push(union([...types].map((t) => snapshot.byType.get(t))));
  if (providers) candidates.push(union([...providers].map((p) => snapshot.byProvider.get(p))));
  if (assets) candidates.push(union([...assets].map((a) => snapshot.byAsset.get(a))));
  const smallest = candidates.length > 0 ? candidates.reduce((a, b) => (b.length < a.length ? b : a)) : null;

  const keep = (place: number): boolean => {
    const market = snapshot.list[place]!;
    return (
      (!types || types.has(market.type)) &&
      (!providers || providers.has(market.provider.providerId)) &&
      (!assets || filterTokenAddresses(market).some((a) => assets.has(a))) &&
      (market.type !== 'PREDICTION' || (market.status !== null && statuses.has(market.status)))
    );
  };
  const places = smallest ? smallest.filter(keep) : snapshot.list.map((_, place) => place).filter(keep);
  snapshot.matches.set(key, places);
  return places;
}

/** The first index of `places` (ascending) holding a value above `place`. */
function after(places: readonly number[], place: number): number {
  let lo = 0;
  let hi = places.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (places[mid]! <= place) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Up to `first` markets of `held` the filter selects, right after the market `after` (a marketId; null
 * = from the start); null when that market is not in `held` at all. The same page of the same
 * snapshot is the same slice while the snapshot keeps it.
 */
export function sliceOf(held: Snapshot, filter: ListingFilter, page: { after: string | null; first: number }): ListingSlice | null {
  const key = filterKey(filter);
  // The anchor's length first: no anchor and filter can spell another pair's key.
  const pageKey = `${page.first} ${page.after?.length ?? -1} ${page.after ?? ''}${key}`;
  const kept = held.pages.get(pageKey);
  if (kept) return kept;
  const slice = cut(held, select(held, filter, key), page);
  if (slice) held.pages.set(pageKey, slice);
  return slice;
}

function cut(held: Snapshot, places: readonly number[], page: { after: string | null; first: number }): ListingSlice | null {
  let start = 0;
  if (page.after !== null) {
    const anchor = held.ordinal.get(page.after);
    if (anchor === undefined) return null;
    start = after(places, anchor);
  }
  const end = Math.min(places.length, start + page.first);
  const markets = new Array<Market>(end - start);
  for (let i = start; i < end; i++) markets[i - start] = held.list[places[i]!]!;
  return { markets, hasNextPage: end < places.length, hasPreviousPage: start > 0, totalCount: places.length };
}
