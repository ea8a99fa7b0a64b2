/** What the simulated positions are generated from: the markets by kind, and the shared draws. */
import { Rng, sig } from '../prng.js';
import { DATA_START_MS, DAY, HOUR } from './series.js';
import type { LendingMarket, LoopMarket, Market, MarketStatus, MarketType, PerpetualMarket, PredictionMarket, RewardMarket, Token, WithStatus, YieldMarket } from './market-types.js';
import type { PositionRecord } from './position-types.js';

export interface PositionsInput {
  markets: readonly Market[];
  statusOf: (m: Market) => MarketStatus;
  /** Price of an asset at epoch ms. */
  priceAt: (assetId: string, t: number) => number;
}

export const assetIdOf = (token: Token): string => `solana:${token.address}`;

/** The markets positions are opened in, by kind, and the draws every kind of position uses, over one random stream. */
export function positionsKit(rng: Rng, input: PositionsInput) {
  const { markets, statusOf, priceAt } = input;
  const byType = <T extends Market>(type: MarketType): T[] => markets.filter((m) => m.type === type) as T[];
  const lendingMarkets = byType<LendingMarket>('lending');
  const yieldMarkets = byType<YieldMarket>('yield');
  const loopMarkets = byType<LoopMarket>('loop');
  const perpMarkets = byType<PerpetualMarket>('perpetual');
  const rewardMarkets = byType<RewardMarket>('reward');
  const predictionMarkets = byType<PredictionMarket>('prediction');
  const withStatus = <M extends Market>(m: M): WithStatus<M> => ({ ...m, status: statusOf(m) });

  // Lending groups: markets of one provider and market name share an obligation (a bundle).
  const lendingGroups = new Map<string, LendingMarket[]>();
  for (const m of lendingMarkets) {
    if (m.borrowToken) continue;
    const key = `${m.provider.id}|${m.additionalData?.marketName ?? ''}`;
    const list = lendingGroups.get(key) ?? [];
    list.push(m);
    lendingGroups.set(key, list);
  }
  const stableSymbols = new Set(['USDC', 'USDT', 'PYUSD']);
  const groupsWithStable = [...lendingGroups.values()].filter((g) => g.some((m) => stableSymbols.has(m.token.symbol)) && g.length > 1);
  const isolated = lendingMarkets.filter((m) => m.borrowToken);

  const positions: PositionRecord[] = [];
  const openTime = (): number => DATA_START_MS + rng.int(1, 340) * DAY + rng.int(0, 23) * HOUR + rng.int(0, 59) * 60_000;
  const newId = (type: MarketType): string => `pos.${type}.${rng.solanaAddress()}`;
  const units = (token: Token, usd: number, t: number): number => sig(usd / Math.max(priceAt(assetIdOf(token), t), 1e-12), 8);

  return { rng, priceAt, lendingMarkets, yieldMarkets, loopMarkets, perpMarkets, rewardMarkets, predictionMarkets, withStatus, stableSymbols, groupsWithStable, isolated, positions, openTime, newId, units };
}

export type PositionsKit = ReturnType<typeof positionsKit>;
