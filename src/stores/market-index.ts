import { LRUCache } from 'lru-cache';
import { Gauge } from 'prom-client';
import {
  MARKET_STATUSES,
  marketTokens,
  type Freshness,
  type FreshnessSource,
  type Market,
  type MarketStatus,
  type MarketType,
  type Provider,
  type TokenRef,
} from '../models/index.js';
import type { ServiceDeps } from '../deps.js';
import type { CallBudget } from '../upstream/budget.js';
import { untilDeadline } from '../upstream/deadline.js';
import { UpstreamError, badBody } from '../upstream/errors.js';
import type { CallScope, FreshnessBound } from '../upstream/scope.js';

/** The listing's largest page: the fewest calls for a full read. */
export const INDEX_PAGE_SIZE = 200;
/**
 * A read is bounded in pages and bytes, so that a listing that never ends (fresh cursors page after
 * page) ends the read soon, and the index held is served meanwhile. With an index held: twice its
 * pages and bytes and some; before the first build: these.
 */
const MAX_PAGES_COLD = 250;
const MAX_BYTES_COLD = 64 * 1024 * 1024;
const MIN_PAGES = 10;
const MIN_BYTES = 32 * 1024 * 1024;
/** A read that lost more than this share of the index held is taken for a broken answer, unless reads say so this many times in a row. */
const MAX_LOSS = 0.5;
const SHRINKS_BELIEVED = 3;
/** Distinct filters whose matches one snapshot keeps (a page is then a slice of a ready list). */
const MATCH_CACHE_SIZE = 512;
/** The prediction statuses listed when a filter names none: the upstream's default. */
const DEFAULT_PREDICTION_STATUS: readonly MarketStatus[] = ['OPEN'];

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

/**
 * How fresh the copy an answer came from is: a `freshness` field reads this. `CACHE` for the shared
 * copy; `ORIGIN` when this operation's `Cache-Control` bound had it re-read (and waited for it);
 * `STALE` when it is older than `staleAfterMs` (the refreshes since failed) or the bound's re-read failed.
 */
export interface IndexFreshness extends Freshness {
  /** When the listing served was read from the markets service. */
  asOf: Date;
}

export interface ListingPage extends IndexFreshness {
  /** The markets after the anchor, in the upstream's order. */
  markets: Market[];
  hasNextPage: boolean;
  /** Some market of the listing comes before this page. */
  hasPreviousPage: boolean;
  /** How many markets of the listing held the filter selects, over all pages (counted from the index, no upstream call). */
  totalCount: number;
}

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
  listing(filter: ListingFilter, page: { after: string | null; first: number }, scope?: CallScope): Promise<ListingPage | null>;
  /**
   * The freshness of a market this index served (to the operation of `scope`, whose bound may have had
   * it re-read); null for a market that is not the index's (one embedded in a position).
   */
  freshnessOf(market: Market, scope?: CallScope): IndexFreshness | null;
  /** Re-reads the listing now (joins a refresh in flight); the previous index stays when it fails. */
  refresh(): Promise<void>;
  info(): MarketIndexInfo;
}

interface Snapshot {
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
  builtAt: number;
  /** Body bytes the read took. */
  bytes: number;
}

/** The snapshot one operation is served, and its source when the operation's bound decided it (else by age). */
interface Served {
  snapshot: Snapshot;
  source: FreshnessSource | null;
}

/** The token addresses the listing's `asset` filter matches: token, tokenA, tokenB. */
function filterTokenAddresses(market: Market): string[] {
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

function buildSnapshot(list: Market[], builtAt: number, bytes: number): Snapshot {
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
  return { list, markets, ordinal, providers, byType, byProvider, byAsset, matches: new LRUCache({ max: MATCH_CACHE_SIZE }), builtAt, bytes };
}

/** The ascending union of some places lists (values of one filter field). */
function union(lists: (readonly number[] | undefined)[]): number[] {
  const present = lists.filter((l): l is readonly number[] => l !== undefined && l.length > 0);
  if (present.length === 1) return present[0]!.slice();
  return [...new Set(present.flat())].sort((a, b) => a - b);
}

const filterKey = (f: ListingFilter): string =>
  [f.types, f.providers, f.assets, f.predictionStatus].map((values) => (values?.length ? [...new Set(values)].sort().join(',') : '')).join('|');

/** The places of `list` a filter selects, ascending: the smallest field's candidates, checked against every field. */
function select(snapshot: Snapshot, filter: ListingFilter): readonly number[] {
  const key = filterKey(filter);
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

export function createMarketIndex(deps: ServiceDeps, options: MarketIndexOptions = {}): MarketIndex {
  const { upstream, logger, registry } = deps;
  const refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
  const staleAfterMs = options.staleAfterMs ?? 5 * refreshIntervalMs;
  const now = options.now ?? Date.now;
  const minClientRefreshAgeMs = options.minClientRefreshAgeMs ?? 1_000;
  if (!(refreshIntervalMs > 0 && staleAfterMs > refreshIntervalMs)) {
    throw new RangeError('market index: refreshIntervalMs must be positive and below staleAfterMs');
  }

  let snapshot: Snapshot | null = null;
  let inflight: Promise<void> | null = null;
  let abort: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let builds = 0;
  // The last read was refused (its records unreadable, or most of the index gone): the index held is stale until a read is accepted.
  let refused = false;
  let shrinks = 0;
  // The snapshot each held market belongs to: a market's freshness is its snapshot's.
  const owners = new WeakMap<Market, Snapshot>();
  // What each bounded operation is served, decided at its first lookup.
  const served = new WeakMap<FreshnessBound, Promise<Served>>();
  const settled = new WeakMap<FreshnessBound, Served>();

  const isStale = (): boolean => snapshot === null || refused || now() - snapshot.builtAt > staleAfterMs;

  new Gauge({
    name: 'gateway_market_index_markets',
    help: 'Markets held by the shared market index.',
    registers: [registry],
    collect() {
      this.set(snapshot?.markets.size ?? 0);
    },
  });
  new Gauge({
    name: 'gateway_market_index_age_seconds',
    help: 'Age of the shared market index (-1 before the first build).',
    registers: [registry],
    collect() {
      this.set(snapshot ? (now() - snapshot.builtAt) / 1000 : -1);
    },
  });

  async function readListing(signal: AbortSignal): Promise<Snapshot> {
    const held = snapshot;
    const maxPages = held ? Math.max(MIN_PAGES, 2 * Math.ceil(held.list.length / INDEX_PAGE_SIZE) + 5) : MAX_PAGES_COLD;
    const maxBytes = held ? Math.max(MIN_BYTES, 2 * held.bytes) : MAX_BYTES_COLD;
    const markets = new Map<string, Market>();
    const seenCursors = new Set<string>();
    let cursor: string | null = null;
    let bytes = 0;
    let unreadable = 0;
    for (let page = 0; page < maxPages && bytes <= maxBytes; page++) {
      const result = await upstream.markets.listMarkets({
        predictionStatus: MARKET_STATUSES,
        limit: INDEX_PAGE_SIZE,
        cursor,
        scope: { signal },
      });
      bytes += result.bytes ?? 0;
      unreadable += result.unreadable ?? 0;
      const tokens: TokenRef[] = [];
      for (const market of result.markets) {
        // A market listed twice (the listing moved under the read) keeps its first place.
        if (!markets.has(market.marketId)) markets.set(market.marketId, market);
        tokens.push(...marketTokens(market));
      }
      cursor = result.cursor;
      if (cursor === null) {
        const list = [...markets.values()];
        checkListing(held, list.length, unreadable);
        if (tokens.length > 0) options.onTokens?.(tokens);
        return buildSnapshot(list, now(), bytes);
      }
      if (tokens.length > 0) options.onTokens?.(tokens);
      if (seenCursors.has(cursor)) break;
      seenCursors.add(cursor);
    }
    // A broken answer of the markets service, reported as any other (UPSTREAM_UNAVAILABLE to callers).
    throw badBody('markets', `the listing did not end (cursor loop, or over ${maxPages} pages or ${maxBytes} bytes)`);
  }

  /**
   * A read is trusted only when most of what it sent could be read, and it did not lose most of the
   * index held (unless reads keep saying so: a listing that did shrink). Else it is refused: the index
   * held stays, flagged stale.
   */
  function checkListing(held: Snapshot | null, readable: number, unreadable: number): void {
    if (!held) return;
    const mostUnreadable = unreadable > 0 && unreadable >= readable;
    const shrunk = readable < held.list.length * (1 - MAX_LOSS);
    shrinks = shrunk && !mostUnreadable ? shrinks + 1 : 0;
    if (!mostUnreadable && (!shrunk || shrinks >= SHRINKS_BELIEVED)) return;
    logger.warn(
      { held: held.list.length, readable, unreadable },
      'market index: the listing read lost most of its valid records; keeping the previous index, flagged stale',
    );
    throw badBody('markets', `the listing lost most of its valid records (${readable} readable, ${unreadable} unreadable, ${held.list.length} held)`);
  }

  /** One read of the whole listing at a time; callers during a read share it. */
  function refresh(): Promise<void> {
    if (inflight) return inflight;
    const controller = new AbortController();
    abort = controller;
    inflight = readListing(controller.signal)
      .then(
        (next) => {
          for (const market of next.list) owners.set(market, next);
          snapshot = next;
          refused = false;
          builds++;
        },
        (err: unknown) => {
          // A refused read (or one that did not end) leaves the index held, flagged stale at once.
          if (err instanceof UpstreamError && err.code === 'EBADBODY' && snapshot) refused = true;
          throw err;
        },
      )
      .finally(() => {
        inflight = null;
        if (abort === controller) abort = null;
      });
    return inflight;
  }

  function backgroundRefresh(): void {
    if (inflight) return;
    refresh().catch((err: unknown) => {
      if (stopped) return;
      logger.warn(
        { err, ageSeconds: snapshot ? Math.round((now() - snapshot.builtAt) / 1000) : null, stale: isStale() },
        snapshot ? 'market index refresh failed; serving the previous index' : 'market index build failed; retrying later',
      );
    });
  }

  /** The index held, built first if need be; the wait for that build ends at the asking operation's deadline (the build goes on). */
  async function current(scope?: CallScope): Promise<Snapshot> {
    if (!snapshot) await untilDeadline(refresh(), scope?.deadline, 'markets');
    return snapshot!;
  }

  /** Counts `count` answers from `held` in the operation's ledger, when it keeps one. */
  function counted(scope: CallScope | undefined, held: Served, count: number): Snapshot {
    const ledger = scope?.ledger;
    if (ledger) {
      const use = freshness(held.snapshot, held.source).stale ? 'stale' : 'hit';
      for (let i = 0; i < count; i++) ledger.cacheUse(use);
    }
    return held.snapshot;
  }

  function freshness(held: Snapshot, source: FreshnessSource | null): IndexFreshness {
    const stale = source === 'STALE' || (source === null && ((refused && held === snapshot) || now() - held.builtAt > staleAfterMs));
    return { source: source ?? (stale ? 'STALE' : 'CACHE'), asOf: new Date(held.builtAt), stale };
  }

  /** The snapshot an operation is served: the one held, unless its client's bound asks for a newer one. */
  function snapshotFor(scope: CallScope | undefined): Promise<Served> | Served {
    const bound = scope?.freshness;
    if (!bound) return snapshot ? { snapshot, source: null } : current(scope).then((built) => ({ snapshot: built, source: null }));
    let pending = served.get(bound);
    if (!pending) {
      pending = bounded(bound, scope);
      served.set(bound, pending);
      // Registered before any lookup awaits it: fields read `settled` after their lookup resolved.
      pending.then((decided) => settled.set(bound, decided), () => undefined);
    }
    return pending;
  }

  async function bounded(bound: FreshnessBound, scope: CallScope | undefined): Promise<Served> {
    const budget: CallBudget | undefined = scope?.budget;
    const held = snapshot;
    if (!held) return { snapshot: await current(scope), source: 'ORIGIN' };
    if (bound.accepts(held.builtAt, now) || now() - held.builtAt < minClientRefreshAgeMs) return { snapshot: held, source: null };
    // The read is shared with every caller that joins it (other requests, the background refresh): it
    // must not fail for them when this operation's budget runs out halfway. So the operation pays for a
    // whole read up front (the pages the last one took), or it is served the index held, flagged STALE.
    const pages = Math.max(1, Math.ceil(held.list.length / INDEX_PAGE_SIZE));
    if (budget && budget.limit - budget.used < pages) return { snapshot: held, source: 'STALE' };
    for (let i = 0; i < pages; i++) budget?.spend('markets');
    try {
      // Its wait ends at its deadline; the read goes on for whoever joined it.
      await untilDeadline(refresh(), scope?.deadline, 'markets');
      return { snapshot: snapshot!, source: 'ORIGIN' };
    } catch (err) {
      logger.warn({ err, ageSeconds: Math.round((now() - held.builtAt) / 1000) }, "market index re-read for a client's Cache-Control failed; serving the previous index");
      return { snapshot: snapshot ?? held, source: snapshot && snapshot !== held ? null : 'STALE' };
    }
  }

  return {
    async start() {
      stopped = false;
      if (!timer) {
        timer = setInterval(backgroundRefresh, refreshIntervalMs);
        timer.unref();
      }
      try {
        await refresh();
        logger.info({ markets: snapshot?.markets.size }, 'market index built');
      } catch (err) {
        if (stopped) return;
        logger.error({ err }, 'market index build failed at start; lookups and the refresh timer retry');
      }
    },

    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      abort?.abort();
    },

    async markets(marketIds, scope) {
      const { markets } = counted(scope, await snapshotFor(scope), marketIds.length);
      return marketIds.map((id) => markets.get(id) ?? null);
    },

    async providers(providerIds, scope) {
      const { providers } = counted(scope, await snapshotFor(scope), providerIds.length);
      return providerIds.map((id) => providers.get(id) ?? null);
    },

    async listing(filter, page, scope) {
      const served = await snapshotFor(scope);
      const { source } = served;
      const held = counted(scope, served, 1);
      const places = select(held, filter);
      let start = 0;
      if (page.after !== null) {
        const anchor = held.ordinal.get(page.after);
        if (anchor === undefined) return null;
        start = after(places, anchor);
      }
      const end = Math.min(places.length, start + page.first);
      const markets = new Array<Market>(end - start);
      for (let i = start; i < end; i++) markets[i - start] = held.list[places[i]!]!;
      return {
        markets,
        hasNextPage: end < places.length,
        hasPreviousPage: start > 0,
        totalCount: places.length,
        ...freshness(held, source),
      };
    },

    freshnessOf(market, scope) {
      const held = owners.get(market);
      if (!held) return null;
      // Settled (the operation's lookups awaited it) by the time a field reads it; unsettled: no bound applied yet.
      const decided = scope?.freshness && settled.get(scope.freshness);
      return freshness(held, decided && decided.snapshot === held ? decided.source : null);
    },

    refresh: () => refresh(),

    info() {
      return {
        size: snapshot?.markets.size ?? 0,
        asOf: snapshot ? new Date(snapshot.builtAt) : null,
        stale: isStale(),
        refreshing: inflight !== null,
        builds,
      };
    },
  };
}
