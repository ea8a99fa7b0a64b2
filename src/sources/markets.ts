import DataLoader from 'dataloader';
import { walletValueHistory, type Freshness, type MARKET_HISTORY_RESOLUTIONS, type Market, type MarketHistoryPoint, type Position, type Provider, type Resolution, type WalletValuePoint } from '../models/index.js';
import type { Services } from '../services.js';
import { MAX_HISTORY_MARKETS, MAX_POSITION_WALLETS, type MarketsClient } from '../upstream/index.js';
import type { CallScope } from '../operation/index.js';
import { eventScope } from './common.js';
import { toError } from '../inflight-waiter.js';
import { WalletPositionsLoader } from './wallet-positions.js';

/** The resolutions the market history call offers. */
export type ApyHistoryResolution = (typeof MARKET_HISTORY_RESOLUTIONS)[number];

/** One market's APY history over a window: every argument that changes the answer. */
export interface ApyHistoryKey {
  marketId: string;
  /** ISO 8601. */
  from: string;
  /** ISO 8601; null = now (the upstream's default). */
  to: string | null;
  resolution: ApyHistoryResolution;
}

/** One wallet's value series; every member changes the answer, so all of them make the cache key. */
export interface ValueHistoryKey {
  walletAddress: string;
  from: Date;
  /** `null`: up to now (the upstream's default). */
  to: Date | null;
  resolution: Resolution;
}

type MarketIndex = Services['marketIndex'];
type MarketsServices = Pick<Services, 'marketIndex' | 'positions' | 'upstream' | 'config'>;

/** A market neither the index nor this request's positions served (none is known): read for this request, time unknown. */
const UNKNOWN_ORIGIN: Freshness = { source: 'ORIGIN', asOf: null, stale: false };

/**
 * The markets service as one request sees it: markets and providers from the shared market index,
 * wallets' positions from the shared positions store, and the history calls, each batched and
 * deduplicated within the request. The operation's scope aborts the calls made for it; the index
 * makes calls only when the scope's freshness bound has it re-read. Loaders are built on first use.
 */
export class MarketsSource {
  readonly #services: MarketsServices;
  #scope: CallScope;
  /** When this request (or event) began, by the positions store's clock: what it read since is ORIGIN. */
  #startedAt: number;
  #markets: DataLoader<string, Market | null> | undefined;
  #providers: DataLoader<string, Provider | null> | undefined;
  #apyHistories: DataLoader<ApyHistoryKey, MarketHistoryPoint[], string> | undefined;
  #positions: WalletPositionsLoader | undefined;
  #valueHistories: DataLoader<ValueHistoryKey, WalletValuePoint[], string> | undefined;

  constructor(services: MarketsServices, scope: CallScope = {}) {
    this.#services = services;
    this.#scope = scope;
    this.#startedAt = services.positions.now();
  }

  /** By the upstream's market id, from the shared market index; null when unknown. */
  market(marketId: string): Promise<Market | null> {
    // With the operation's scope: the client's Cache-Control bound may have the index re-read first.
    this.#markets ??= new DataLoader((ids) => this.#services.marketIndex.markets(ids, this.#scope));
    return this.#markets.load(marketId);
  }

  /** By provider id, from the shared market index; null when unknown. */
  provider(providerId: string): Promise<Provider | null> {
    this.#providers ??= new DataLoader((ids) => this.#services.marketIndex.providers(ids, this.#scope));
    return this.#providers.load(providerId);
  }

  /** One page of the index's listing; `null` when the market `after` names is no longer listed. */
  listing(filter: Parameters<MarketIndex['listing']>[0], page: Parameters<MarketIndex['listing']>[1]): ReturnType<MarketIndex['listing']> {
    return this.#services.marketIndex.listing(filter, page, this.#scope);
  }

  /**
   * How fresh a market record is: the index's copy, else a market embedded in a position this request
   * loaded (`ORIGIN` when read for it, `CACHE` from a shared copy), else read for this request, time unknown.
   */
  freshness(market: Market): Freshness {
    return this.#services.marketIndex.freshnessOf(market, this.#scope) ?? this.#positionFreshness(market) ?? UNKNOWN_ORIGIN;
  }

  /**
   * APY and deposit history; keys sharing a window (from, to, resolution) go out together, up to
   * `MAX_HISTORY_MARKETS` ids per call. A market the upstream has no history for gets `[]`.
   */
  apyHistory(key: ApyHistoryKey): Promise<MarketHistoryPoint[]> {
    this.#apyHistories ??= new DataLoader((keys) => loadApyHistories(this.#services.upstream.markets, keys, this.#scope), {
      cacheKeyFn: (k) => `${windowId(k)}\n${k.marketId}`,
    });
    return this.#apyHistories.load(key);
  }

  /** Every position of a wallet (unfiltered), batched over wallets up to POSITIONS_BATCH_SIZE per call. */
  positions(walletAddress: string): Promise<Position[]> {
    // Positions are shared across requests and callers (src/stores/positions.ts); the loader batches and deduplicates within the request.
    this.#positions ??= new WalletPositionsLoader(this.#services.positions, this.#scope, Math.min(Math.max(1, this.#services.config.positionsBatchSize), MAX_POSITION_WALLETS));
    return this.#positions.load(walletAddress);
  }

  /** A wallet's value over time, one upstream call per distinct key. */
  walletValueHistory(key: ValueHistoryKey): Promise<WalletValuePoint[]> {
    this.#valueHistories ??= new DataLoader(
      async ([k]) => {
        const { walletAddress, from, to, resolution } = k!;
        const histories = await this.#services.upstream.markets.getPositionHistory({
          walletAddress,
          startTime: from,
          ...(to ? { endTime: to } : {}),
          resolution,
          scope: this.#scope,
        });
        return [walletValueHistory(histories)];
      },
      {
        // The upstream takes one wallet per call: there is nothing to batch, only to deduplicate.
        batch: false,
        cacheKeyFn: (k) => [k.walletAddress, k.from.toISOString(), k.to?.toISOString() ?? 'now', k.resolution].join('|'),
      },
    );
    return this.#valueHistories.load(key);
  }

  /** Starts a subscription's event: forgets what earlier events loaded, and calls with the event's scope. */
  startEvent(): void {
    this.#markets = undefined;
    this.#providers = undefined;
    this.#apyHistories = undefined;
    this.#positions = undefined;
    this.#valueHistories = undefined;
    this.#scope = eventScope(this.#scope);
    this.#startedAt = this.#services.positions.now();
  }

  /** A market embedded in a position this request loaded, as of its positions call; null for any other market. */
  #positionFreshness(market: Market): Freshness | null {
    const asOf = this.#positions?.fetchedAtOf(market) ?? null;
    if (asOf === null) return null;
    // Read for this request (or by a read it joined that answered after it began): ORIGIN; a shared copy read before it: CACHE.
    return { source: asOf >= this.#startedAt ? 'ORIGIN' : 'CACHE', asOf: new Date(asOf), stale: false };
  }
}

/** One batch of APY history keys: one call per window and chunk of `MAX_HISTORY_MARKETS` markets. */
async function loadApyHistories(client: MarketsClient, keys: readonly ApyHistoryKey[], scope: CallScope): Promise<(MarketHistoryPoint[] | Error)[]> {
  const windows = new Map<string, { key: ApyHistoryKey; ids: Set<string> }>();
  for (const key of keys) {
    const id = windowId(key);
    const window = windows.get(id) ?? { key, ids: new Set<string>() };
    window.ids.add(key.marketId);
    windows.set(id, window);
  }

  // `${window}\n${marketId}` → points, or the error of the call that should have carried it.
  const results = new Map<string, MarketHistoryPoint[] | Error>();
  const calls: Promise<void>[] = [];
  for (const [id, { key, ids }] of windows) {
    const all = [...ids];
    for (let i = 0; i < all.length; i += MAX_HISTORY_MARKETS) {
      const chunk = all.slice(i, i + MAX_HISTORY_MARKETS);
      calls.push(
        client
          .getMarketHistory({
            marketIds: chunk,
            startTime: key.from,
            ...(key.to ? { endTime: key.to } : {}),
            resolution: key.resolution,
            scope,
          })
          .then(
            (histories) => {
              const byId = new Map(histories.map((h) => [h.marketId, h.points] as const));
              for (const marketId of chunk) results.set(`${id}\n${marketId}`, byId.get(marketId) ?? []);
            },
            (error: unknown) => {
              const failure = toError(error);
              for (const marketId of chunk) results.set(`${id}\n${marketId}`, failure);
            },
          ),
      );
    }
  }
  await Promise.all(calls);
  return keys.map((key) => results.get(`${windowId(key)}\n${key.marketId}`) ?? []);
}

function windowId(key: ApyHistoryKey): string {
  return `${key.from}|${key.to ?? ''}|${key.resolution}`;
}
