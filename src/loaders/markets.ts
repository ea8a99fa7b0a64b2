import DataLoader from 'dataloader';
import type { Market, MarketHistoryPoint, Provider } from '../models/index.js';
import type { Services } from '../services.js';
import { MAX_HISTORY_MARKETS, type MARKET_HISTORY_RESOLUTIONS } from '../upstream/index.js';
import type { CallScope } from '../upstream/scope.js';

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

export interface MarketLoaders {
  /** By the upstream's market id, from the shared market index; null when unknown. */
  market: DataLoader<string, Market | null>;
  /** By provider id, from the shared market index; null when unknown. */
  provider: DataLoader<string, Provider | null>;
  /**
   * APY and deposit history; keys sharing a window (from, to, resolution) go out together, up to
   * `MAX_HISTORY_MARKETS` ids per call. A market the upstream has no history for gets `[]`.
   */
  apyHistory: DataLoader<ApyHistoryKey, MarketHistoryPoint[]>;
}

/**
 * `scope` is the operation's: its signal aborts the APY history calls; `market` and `provider` read the
 * shared index, which makes calls only when the scope's freshness bound has it re-read.
 */
export function createMarketLoaders(services: Services, scope: CallScope = {}): MarketLoaders {
  const { marketIndex, upstream } = services;

  // With the operation's scope: the client's Cache-Control bound may have the index re-read first.
  const market = new DataLoader<string, Market | null>((ids) => marketIndex.markets(ids, scope));
  const provider = new DataLoader<string, Provider | null>((ids) => marketIndex.providers(ids, scope));

  const apyHistory = new DataLoader<ApyHistoryKey, MarketHistoryPoint[], string>(
    async (keys) => {
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
            upstream.markets
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
                  const failure = error instanceof Error ? error : new Error(String(error));
                  for (const marketId of chunk) results.set(`${id}\n${marketId}`, failure);
                },
              ),
          );
        }
      }
      await Promise.all(calls);
      return keys.map((key) => results.get(`${windowId(key)}\n${key.marketId}`) ?? []);
    },
    { cacheKeyFn: (key) => `${windowId(key)}\n${key.marketId}` },
  );

  return { market, provider, apyHistory };
}

function windowId(key: ApyHistoryKey): string {
  return `${key.from}|${key.to ?? ''}|${key.resolution}`;
}
