/**
 * The simulator's data world: assets, providers, markets, wallets and positions, generated
 * deterministically from a seed, plus time series that are pure functions of (seed, id, time).
 */
import { generateAssets } from './assets.js';
import { generateMarkets } from './markets.js';
import { generatePositions } from './positions.js';
import { makePriceFn } from './pricing.js';
import { Rng, round, sig } from '../prng.js';
import { DAY, ms, noise, seriesKey, WORLD_REFERENCE_MS } from './series.js';
import { positionValuation } from './valuation.js';
import type { Asset, AssetRecord, AssetSummary } from './asset-types.js';
import type { Market, MarketStatus, Provider } from './market-types.js';
import type { Position, PositionRecord } from './position-types.js';

export * from './asset-types.js';
export * from './market-types.js';
export * from './position-types.js';
export { averageCostBasis, quantityAt, type CostBasisResult } from './costBasis.js';
export { DATA_START_MS, WORLD_REFERENCE_MS, RESOLUTION_MS, timeGrid, gridCount, type Resolution } from './series.js';

export interface MarketHistoryPoint {
  depositApy: number | null;
  borrowApy: number | null;
  totalDeposit: number | null;
  totalDepositUsd: number | null;
}

export interface World {
  seed: number;
  /** All assets, well-known first (then generated ones, then prediction outcome tokens). */
  assets: AssetRecord[];
  assetsById: Map<string, AssetRecord>;

  providers: Provider[];
  /** All markets, in listing order. */
  markets: Market[];
  marketsById: Map<string, Market>;

  /** Every wallet the world knows (the first three are `demoWallets`). */
  wallets: { address: string }[];
  /** Three wallets holding positions of every type (lending bundles, prediction positions of every status, orphaned rewards ...). */
  demoWallets: string[];
  /** Stored positions; price-dependent fields are filled in by `positionAt`. */
  positions: PositionRecord[];
  positionsById: Map<string, PositionRecord>;
  positionsByOwner: Map<string, PositionRecord[]>;

  /** USD price of an asset at a time (Date or epoch ms); undefined for an unknown id. */
  priceAt(assetId: string, at: Date | number): number | undefined;
  /** The public Asset record with its price at `at` (default now). */
  assetAt(id: string, at?: Date | number): Asset | undefined;
  /** The AssetSummary of a stored asset (search results). */
  assetSummary(asset: AssetRecord): AssetSummary;
  /** A market's APY / deposit series at a time. */
  marketPointAt(marketId: string, at: Date | number): MarketHistoryPoint | undefined;
  /** The public Position record as it stands at `at` (default now): amountUsd, markPrice, pnl ... */
  positionAt(record: PositionRecord, at?: Date | number): Position;
  /** A position's amount and USD value at a time (0 before it was opened). */
  positionValueAt(record: PositionRecord, at: Date | number): { amount: number; amountUsd: number | null };
}

const cache = new Map<number, World>();

/**
 * The world for a seed. Deterministic: the same seed gives the same world. Worlds are cached per
 * seed (the same instance is returned), so starting many simulators with one seed is cheap:
 * treat a world as read-only. `createWorld` builds a fresh, uncached one.
 */
export function generateWorld(seed: number): World {
  const hit = cache.get(seed);
  if (hit) return hit;
  const world = createWorld(seed);
  cache.set(seed, world);
  if (cache.size > 8) cache.delete(cache.keys().next().value!);
  return world;
}

export function createWorld(seed: number): World {
  const assets = generateAssets(new Rng(seed ^ 0x1a55e7));
  const assetsById = new Map<string, AssetRecord>();
  for (const a of assets) assetsById.set(a.id, a);
  const price = makePriceFn(seed, assetsById);
  const priceOr0 = (id: string, t: number): number => price(id, t) ?? 0;

  const built = generateMarkets(new Rng(seed ^ 0x3a4c3), assets, (id) => priceOr0(id, WORLD_REFERENCE_MS));
  for (const a of built.outcomeAssets) {
    assets.push(a);
    assetsById.set(a.id, a);
  }
  const markets = built.markets;
  const marketsById = new Map(markets.map((m) => [m.id, m] as const));
  const statusOf = (m: Market): MarketStatus => (m.type === 'prediction' ? m.status : 'open');

  const pos = generatePositions(new Rng(seed ^ 0x9051), { markets, statusOf, priceAt: priceOr0 });
  const positionsById = new Map<string, PositionRecord>();
  const positionsByOwner = new Map<string, PositionRecord[]>();
  for (const r of pos.positions) {
    positionsById.set(r.position.id, r);
    const list = positionsByOwner.get(r.position.ownerAddress) ?? [];
    list.push(r);
    positionsByOwner.set(r.position.ownerAddress, list);
  }

  const apyKeys = new Map<string, [number, number, number]>();
  const keysOf = (id: string): [number, number, number] => {
    let k = apyKeys.get(id);
    if (!k) {
      k = [seriesKey(seed, id, 'depositApy'), seriesKey(seed, id, 'borrowApy'), seriesKey(seed, id, 'totalDeposit')];
      apyKeys.set(id, k);
    }
    return k;
  };

  const { positionValueAt, positionAt } = positionValuation(price);

  const assetSummary = (a: AssetRecord): AssetSummary => ({
    id: a.id,
    chain: a.chain,
    address: a.address,
    type: a.type,
    name: a.name,
    symbol: a.symbol,
    imageUrl: a.imageUrl,
  });

  return {
    seed,
    assets,
    assetsById,
    providers: built.providers,
    markets,
    marketsById,
    wallets: pos.wallets,
    demoWallets: pos.demoWallets,
    positions: pos.positions,
    positionsById,
    positionsByOwner,
    priceAt: (assetId, at) => price(assetId, ms(at)),
    assetSummary,
    assetAt(id, at) {
      const a = assetsById.get(id);
      if (!a) return undefined;
      const t = ms(at);
      const now = price(a.id, t);
      const before = price(a.id, t - DAY);
      const { model: _model, ...rest } = a;
      return {
        ...rest,
        price:
          now === undefined
            ? null
            : {
                usd: sig(now, 8),
                change24h: before === undefined || before === 0 ? null : round(now / before - 1, 6),
                updatedAt: new Date(Math.floor(t / 60_000) * 60_000).toISOString(),
              },
        marketCapUsd: a.model.supply !== undefined && now !== undefined ? round(a.model.supply * now, 0) : null,
      };
    },
    marketPointAt(id, at) {
      const m = marketsById.get(id);
      if (!m) return undefined;
      const t = ms(at);
      const [kd, kb, kt] = keysOf(id);
      const wobble = (k: number, scale: number): number => Math.max(0, 1 + scale * noise(k, t));
      const apy = (v: number, k: number): number => round(Math.max(0, v * wobble(k, 0.18)), 6);
      const deposits = (total: number | undefined, usd: number | undefined): [number | null, number | null] => {
        if (total === undefined) return [null, null];
        const f = Math.exp(0.12 * noise(kt, t));
        return [sig(total * f, 8), usd === undefined ? null : round(usd * f, 2)];
      };
      switch (m.type) {
        case 'lending': {
          const [td, tdu] = deposits(m.totalDeposit, m.totalDepositUsd);
          return { depositApy: apy(m.depositApy, kd), borrowApy: apy(m.borrowApy, kb), totalDeposit: td, totalDepositUsd: tdu };
        }
        case 'yield': {
          const [td, tdu] = deposits(m.totalDeposit, m.totalDepositUsd);
          return { depositApy: apy(m.depositApy, kd), borrowApy: null, totalDeposit: td, totalDepositUsd: tdu };
        }
        case 'loop':
          return { depositApy: apy(m.depositApy, kd), borrowApy: null, totalDeposit: null, totalDepositUsd: null };
        case 'reward':
          return { depositApy: apy(m.rewardApy, kd), borrowApy: null, totalDeposit: null, totalDepositUsd: null };
        default:
          return { depositApy: null, borrowApy: null, totalDeposit: null, totalDepositUsd: null };
      }
    },
    positionAt,
    positionValueAt,
  };
}
