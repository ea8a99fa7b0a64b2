import { Gauge } from 'prom-client';
import { MARKET_STATUSES, marketTokens, type Market, type Provider, type TokenRef } from '../models/index.js';
import type { ServiceDeps } from '../deps.js';
import { badBody } from '../upstream/errors.js';

/** The listing's largest page: the fewest calls for a full read. */
export const INDEX_PAGE_SIZE = 200;
/** A listing longer than this many pages is taken for a cursor loop, not a catalogue. */
const MAX_PAGES = 1_000;

export interface MarketIndexOptions {
  /** Called with the token records of every listing page the index reads (feeds the asset fallback). */
  onTokens?: (tokens: readonly TokenRef[]) => void;
  /** Background refresh period. Default 60 s. */
  refreshIntervalMs?: number;
  /** Age after which the index counts as stale (it is still served). Must exceed the refresh period. Default 5 min. */
  staleAfterMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface MarketIndexInfo {
  /** Markets held. */
  size: number;
  /** When the index held now was read; null before the first successful build. */
  builtAt: Date | null;
  /** Older than `staleAfterMs`: the last refreshes failed. */
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
   */
  markets(marketIds: readonly string[]): Promise<(Market | null)[]>;
  /** Providers by id, null when unknown; same building rule as `markets`. */
  providers(providerIds: readonly string[]): Promise<(Provider | null)[]>;
  /** Re-reads the listing now (joins a refresh in flight); the previous index stays when it fails. */
  refresh(): Promise<void>;
  info(): MarketIndexInfo;
}

interface Snapshot {
  markets: ReadonlyMap<string, Market>;
  providers: ReadonlyMap<string, Provider>;
  builtAt: number;
}

export function createMarketIndex(deps: ServiceDeps, options: MarketIndexOptions = {}): MarketIndex {
  const { upstream, logger, registry } = deps;
  const refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
  const staleAfterMs = options.staleAfterMs ?? 300_000;
  const now = options.now ?? Date.now;
  if (!(refreshIntervalMs > 0 && staleAfterMs > refreshIntervalMs)) {
    throw new RangeError('market index: refreshIntervalMs must be positive and below staleAfterMs');
  }

  let snapshot: Snapshot | null = null;
  let inflight: Promise<void> | null = null;
  let abort: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let builds = 0;

  const isStale = (): boolean => snapshot === null || now() - snapshot.builtAt > staleAfterMs;

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
    const markets = new Map<string, Market>();
    const providers = new Map<string, Provider>();
    const seenCursors = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await upstream.markets.listMarkets({
        predictionStatus: MARKET_STATUSES,
        limit: INDEX_PAGE_SIZE,
        cursor,
        scope: { signal },
      });
      const tokens: TokenRef[] = [];
      for (const market of result.markets) {
        markets.set(market.marketId, market);
        if (!providers.has(market.provider.providerId)) providers.set(market.provider.providerId, market.provider);
        tokens.push(...marketTokens(market));
      }
      if (tokens.length > 0) options.onTokens?.(tokens);
      cursor = result.cursor;
      if (cursor === null) return { markets, providers, builtAt: now() };
      if (seenCursors.has(cursor)) break;
      seenCursors.add(cursor);
    }
    // A broken answer of the markets service, reported as any other (UPSTREAM_UNAVAILABLE to callers).
    throw badBody('markets', `the listing did not end (cursor loop or more than ${MAX_PAGES} pages)`);
  }

  /** One read of the whole listing at a time; callers during a read share it. */
  function refresh(): Promise<void> {
    if (inflight) return inflight;
    const controller = new AbortController();
    abort = controller;
    inflight = readListing(controller.signal)
      .then((next) => {
        snapshot = next;
        builds++;
      })
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

  async function current(): Promise<Snapshot> {
    if (!snapshot) await refresh();
    return snapshot!;
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

    async markets(marketIds) {
      const { markets } = await current();
      return marketIds.map((id) => markets.get(id) ?? null);
    },

    async providers(providerIds) {
      const { providers } = await current();
      return providerIds.map((id) => providers.get(id) ?? null);
    },

    refresh,

    info() {
      return {
        size: snapshot?.markets.size ?? 0,
        builtAt: snapshot ? new Date(snapshot.builtAt) : null,
        stale: isStale(),
        refreshing: inflight !== null,
        builds,
      };
    },
  };
}
