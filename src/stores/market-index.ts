import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { Market, Provider, TokenRef } from '../models/index.js';
import type { Upstream } from '../upstream/index.js';
import type { CallScope } from '../operation/index.js';
import { sliceOf, type ListingFilter, type ListingSlice } from './markets/filters.js';
import { createListingReader } from './markets/reader.js';
import { IndexRefresher } from './markets/refresher.js';
import { ServedSnapshots, type IndexFreshness, type Served } from './markets/served.js';

export { INDEX_PAGE_SIZE } from './markets/reader.js';
export type { ListingFilter } from './markets/filters.js';

/**
 * The market index is built of parts with one job each (`markets/`): the reader of the paged listing,
 * the snapshot it is indexed into and the filters over it, the refresher that holds it and keeps it
 * fresh, and the snapshot each operation is served under its client's freshness bound.
 */

/** What the market index is built from. */
export interface MarketIndexDeps {
  upstream: Pick<Upstream, 'markets'>;
  logger: Logger;
  /** Where its gauges are registered. */
  registry: Registry;
}

export interface MarketIndexOptions {
  /** Called with the token records of every listing page the index reads (feeds the asset fallback). */
  onTokens?: (tokens: readonly TokenRef[]) => void;
  /** Background refresh period (`MARKET_INDEX_REFRESH_MS`). Default 60 s. */
  refreshIntervalMs?: number;
  /** Age after which the index counts as stale (it is still served). Must exceed the refresh period. Default 5 refresh periods. */
  staleAfterMs?: number;
  /**
   * A client's `Cache-Control` bound never re-reads an index younger than this: one listing read per
   * interval at most, however many clients send `no-cache` (HTTP ages are whole seconds). Default 1 s.
   */
  minClientRefreshAgeMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export type ListingPage = ListingSlice & IndexFreshness;

export interface MarketIndexInfo {
  /** Markets held. */
  size: number;
  /** When the index held now was read; null before the first successful build. */
  asOf: Date | null;
  /** Older than `staleAfterMs` (or never built): the last refreshes failed. */
  stale: boolean;
  refreshing: boolean;
  /** Successful builds since creation. */
  builds: number;
}

/**
 * Every market of the listing (all six types, prediction markets of every status), shared across
 * requests: the markets service has no get-by-id call. Public data only.
 */
export interface MarketIndex {
  /** Builds the index once; a failing upstream is logged, not thrown (the refresh timer and lookups retry). */
  start(): Promise<void>;
  /** Stops the refresh timer and aborts a refresh in flight. */
  stop(): void;
  /**
   * Markets by upstream id, null when unknown. Builds the index first (once, shared by concurrent
   * callers) when it has never been built; rejects with the upstream's error when that build fails.
   *
   * With the client's bound in `scope.freshness`, an index read longer ago than the bound allows is
   * re-read first (one read, joined by concurrent callers, at most once per operation, counted in its
   * budget); when that read fails, the index held is served, flagged `STALE`. One operation is served
   * one snapshot throughout (`freshnessOf` then reports it as this operation saw it). The wait for a
   * build ends at the operation's deadline (the build goes on), and each id answered counts in its
   * ledger as a hit (stale when the index is).
   */
  markets(marketIds: readonly string[], scope?: CallScope): Promise<(Market | null)[]>;
  /** Providers by id, null when unknown; same building, bound and counting rules as `markets`. */
  providers(providerIds: readonly string[], scope?: CallScope): Promise<(Provider | null)[]>;
  /**
   * Up to `first` markets of the listing a filter selects, in the upstream's order, right after the
   * market `after` (a marketId; null = from the start). The position is the anchor market's place in
   * the listing held now, so it survives a refresh; null when that market is no longer listed at all.
   * Same building rule as `markets`; no upstream call while the index is built. A page counts once in the ledger.
   * `totalCount` is how many markets the filter selects in the same snapshot (the matches are kept per filter).
   */
  listing(filter: ListingFilter, page: { after: string | null; first: number }, scope?: CallScope): ListingPage | null | Promise<ListingPage | null>;
  /**
   * The freshness of a market this index served (to the operation of `scope`, whose bound may have had
   * it re-read); null for a market that is not the index's (one embedded in a position).
   */
  freshnessOf(market: Market, scope?: CallScope): IndexFreshness | null;
  /** The market held now, by id, with no build, bound or count: for sharing equal parts with it, not for answers. */
  held(marketId: string): Market | undefined;
  /** Re-reads the listing now (joins a refresh in flight); the previous index stays when it fails. */
  refresh(): Promise<void>;
  info(): MarketIndexInfo;
  /** Counts the listings read into the index: an answer built from the index is as new as the version it read. */
  version(): number;
}

export function createMarketIndex(deps: MarketIndexDeps, options: MarketIndexOptions = {}): MarketIndex {
  const { upstream, logger, registry } = deps;
  const refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
  const staleAfterMs = options.staleAfterMs ?? 5 * refreshIntervalMs;
  const now = options.now ?? Date.now;
  const minClientRefreshAgeMs = options.minClientRefreshAgeMs ?? 1_000;
  if (!(refreshIntervalMs > 0 && staleAfterMs > refreshIntervalMs)) {
    throw new RangeError('market index: refreshIntervalMs must be positive and below staleAfterMs');
  }
  const read = createListingReader({ markets: upstream.markets, logger, onTokens: options.onTokens });
  const refresher = new IndexRefresher({ read, logger, registry, refreshIntervalMs, staleAfterMs, now });
  const served = new ServedSnapshots(refresher, { logger, staleAfterMs, minClientRefreshAgeMs, now });

  function pageOf(operation: Served, filter: ListingFilter, page: { after: string | null; first: number }, scope: CallScope | undefined): ListingPage | null {
    const held = served.counted(scope, operation, 1);
    const slice = sliceOf(held, filter, page);
    // The slice is the snapshot's, shared by every request for the page: the freshness goes on a page of this request's own.
    return slice && { ...slice, ...served.freshness(held, operation.source) };
  }

  return {
    start: () => refresher.start(),
    stop: () => refresher.stop(),

    async markets(marketIds, scope) {
      const { markets } = served.counted(scope, await served.snapshotFor(scope), marketIds.length);
      return marketIds.map((id) => markets.get(id) ?? null);
    },

    async providers(providerIds, scope) {
      const { providers } = served.counted(scope, await served.snapshotFor(scope), providerIds.length);
      return providerIds.map((id) => providers.get(id) ?? null);
    },

    listing(filter, page, scope) {
      // At once when the snapshot to serve is held (most requests): no promise made here (the connection resolver still awaits the page).
      const operation = served.snapshotFor(scope);
      return operation instanceof Promise ? operation.then((decided) => pageOf(decided, filter, page, scope)) : pageOf(operation, filter, page, scope);
    },

    freshnessOf: (market, scope) => served.freshnessOf(market, scope),

    held: (marketId) => refresher.snapshot?.markets.get(marketId),

    refresh: () => refresher.refresh(),

    version: () => refresher.builds,

    info() {
      const { snapshot } = refresher;
      return {
        size: snapshot?.markets.size ?? 0,
        asOf: snapshot ? new Date(snapshot.builtAt) : null,
        stale: refresher.isStale(),
        refreshing: refresher.refreshing,
        builds: refresher.builds,
      };
    },
  };
}
