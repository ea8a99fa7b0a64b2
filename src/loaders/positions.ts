import DataLoader from 'dataloader';
import { walletValueHistory, type Freshness, type Market, type Position, type Resolution, type WalletValuePoint } from '../models/index.js';
import type { Services } from '../services.js';
import { MAX_POSITION_WALLETS } from '../upstream/index.js';
import type { CallScope } from '../upstream/scope.js';

/** One wallet's value series; every member changes the answer, so all of them make the cache key. */
export interface ValueHistoryKey {
  walletAddress: string;
  from: Date;
  /** `null`: up to now (the upstream's default). */
  to: Date | null;
  resolution: Resolution;
}

export interface PositionLoaders {
  /** Every position of a wallet (unfiltered), batched over wallets up to POSITIONS_BATCH_SIZE per call. */
  byWallet: DataLoader<string, Position[]>;
  /** A wallet's value over time, one upstream call per distinct key. */
  valueHistory: DataLoader<ValueHistoryKey, WalletValuePoint[], string>;
  /** A market embedded in a position this request loaded, as of its positions call: `ORIGIN` when read for this request, `CACHE` from a shared copy; null for any other market. */
  marketFreshness(market: Market): Freshness | null;
}

/** `scope` is the operation's: its signal aborts the calls (the loaders serve one request, so batches hold that request's keys only). */
export function createPositionLoaders(services: Services, scope: CallScope = {}): PositionLoaders {
  const { upstream, config } = services;
  const startedAt = services.positions.now();

  // Positions are shared across requests and callers (src/stores/positions.ts); the loader batches and deduplicates within the request.
  const byWallet = new DataLoader<string, Position[]>((wallets) => services.positions.load(wallets, scope), {
    maxBatchSize: Math.min(Math.max(1, config.positionsBatchSize), MAX_POSITION_WALLETS),
  });

  const valueHistory = new DataLoader<ValueHistoryKey, WalletValuePoint[], string>(
    async ([key]) => {
      const { walletAddress, from, to, resolution } = key!;
      const histories = await upstream.markets.getPositionHistory({
        walletAddress,
        startTime: from,
        ...(to ? { endTime: to } : {}),
        resolution,
        scope,
      });
      return [walletValueHistory(histories)];
    },
    {
      // The upstream takes one wallet per call: there is nothing to batch, only to deduplicate.
      batch: false,
      cacheKeyFn: (key) => [key.walletAddress, key.from.toISOString(), key.to?.toISOString() ?? 'now', key.resolution].join('|'),
    },
  );

  return {
    byWallet,
    valueHistory,
    marketFreshness(market) {
      const asOf = services.positions.fetchedAtOf(market);
      if (asOf === null) return null;
      // Read for this request (or by a read it joined that answered after it began): ORIGIN; a shared copy read before it: CACHE.
      return { source: asOf >= startedAt ? 'ORIGIN' : 'CACHE', asOf: new Date(asOf), stale: false };
    },
  };
}
