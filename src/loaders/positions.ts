import DataLoader from 'dataloader';
import {
  marketTokens,
  walletValueHistory,
  type Freshness,
  type Market,
  type Position,
  type Resolution,
  type TokenRef,
  type WalletValuePoint,
} from '../models/index.js';
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
  /** A market embedded in a position this request loaded: `ORIGIN`, as of its positions call; null for any other market. */
  marketFreshness(market: Market): Freshness | null;
}

/** `scope` is the operation's: its signal aborts the calls (the loaders serve one request, so batches hold that request's keys only). */
export function createPositionLoaders(services: Services, scope: CallScope = {}): PositionLoaders {
  const { upstream, assetCache, config } = services;

  // Embedded market records, by when the positions call that carried them answered.
  const embedded = new WeakMap<Market, Date>();

  const byWallet = new DataLoader<string, Position[]>(
    async (wallets) => {
      const positions = await upstream.markets.getPositions({ walletAddresses: wallets, scope });
      const answeredAt = new Date();
      for (const position of positions) if (position.market) embedded.set(position.market, answeredAt);
      assetCache.rememberTokens(positionTokens(positions));
      const byOwner = new Map<string, Position[]>(wallets.map((wallet) => [wallet, []]));
      for (const position of positions) byOwner.get(position.ownerAddress)?.push(position);
      return wallets.map((wallet) => byOwner.get(wallet) ?? []);
    },
    { maxBatchSize: Math.min(Math.max(1, config.positionsBatchSize), MAX_POSITION_WALLETS) },
  );

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
      const asOf = embedded.get(market);
      return asOf ? { source: 'ORIGIN', asOf, stale: false } : null;
    },
  };
}

/** The token records carried by positions (their markets', reward and outcome tokens), once each. */
function positionTokens(positions: readonly Position[]): TokenRef[] {
  const tokens = new Map<string, TokenRef>();
  const add = (token: TokenRef | null) => {
    if (token && !tokens.has(token.assetId)) tokens.set(token.assetId, token);
  };
  for (const position of positions) {
    if (position.market) for (const token of marketTokens(position.market)) add(token);
    if (position.type === 'REWARD' || position.type === 'PREDICTION') add(position.token);
  }
  return [...tokens.values()];
}
