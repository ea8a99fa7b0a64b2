/** Wallets and their positions of every type. */
import { averageCostBasis } from './costBasis.js';
import { Rng, round, sig } from '../prng.js';
import { DATA_START_MS, DAY, HOUR, WORLD_REFERENCE_MS } from './series.js';
import type {
  LendingMarket,
  LendingPosition,
  LoopMarket,
  LoopPosition,
  Market,
  MarketStatus,
  MarketType,
  PerpetualMarket,
  PerpetualPosition,
  PositionRecord,
  PredictionMarket,
  PredictionPosition,
  PredictionTrade,
  RewardMarket,
  RewardPosition,
  Token,
  WithStatus,
  YieldMarket,
  YieldPosition,
} from './types.js';

export interface PositionsBuild {
  wallets: { address: string }[];
  demoWallets: string[];
  positions: PositionRecord[];
}

export interface PositionsInput {
  markets: readonly Market[];
  statusOf: (m: Market) => MarketStatus;
  /** Price of an asset at epoch ms. */
  priceAt: (assetId: string, t: number) => number;
}

const WALLET_COUNT = 220;
const DEMO_COUNT = 3;

const assetIdOf = (token: Token): string => `solana:${token.address}`;
const iso = (ms: number): string => new Date(ms).toISOString();

export function generatePositions(rng: Rng, input: PositionsInput): PositionsBuild {
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

  const addLending = (owner: string): LendingPosition[] => {
    const openedAtMs = openTime();
    let depositMarket: LendingMarket;
    let borrowMarket: LendingMarket | undefined;
    let borrowToken: Token | undefined;
    if (rng.chance(0.2) && isolated.length > 0) {
      depositMarket = rng.pick(isolated);
      borrowMarket = rng.chance(0.8) ? depositMarket : undefined;
      borrowToken = depositMarket.borrowToken;
    } else {
      const group = rng.pick(groupsWithStable);
      const stables = group.filter((m) => stableSymbols.has(m.token.symbol));
      depositMarket = rng.pick(group);
      const candidates = stables.filter((m) => m !== depositMarket);
      borrowMarket = rng.chance(0.65) && candidates.length > 0 ? rng.pick(candidates) : undefined;
      borrowToken = borrowMarket?.token;
    }
    const depositUsd = rng.logFloat(50, 250_000);
    const maxLtv = depositMarket.maxLtv ?? 0.5;
    const ltvRatio = borrowMarket && maxLtv > 0.05 ? rng.float(0.05, maxLtv * 0.92) : 0;
    const ltv = round(ltvRatio * 100, 2);
    const bundleId = borrowMarket ? `${depositMarket.provider.id}.obligation.${rng.solanaAddress()}` : undefined;
    const depositPrice = priceAt(assetIdOf(depositMarket.token), WORLD_REFERENCE_MS);
    const liquidationPrice =
      borrowMarket && depositMarket.liquidationLtv ? sig(depositPrice * (ltvRatio / depositMarket.liquidationLtv), 6) : undefined;
    const rewards =
      depositMarket.rewards && rng.chance(0.7)
        ? depositMarket.rewards
            .filter((r) => r.type === 'deposit')
            .map((r) => ({ tokenAddress: r.token.address, amount: units(r.token, depositUsd * r.apy * rng.float(0.02, 0.2), WORLD_REFERENCE_MS) }))
        : undefined;
    const out: LendingPosition[] = [];
    const deposit: LendingPosition = {
      id: newId('lending'),
      type: 'lending',
      marketId: depositMarket.id,
      ownerAddress: owner,
      ...(bundleId ? { bundleId } : {}),
      websiteUrl: depositMarket.websiteUrl,
      amount: units(depositMarket.token, depositUsd, WORLD_REFERENCE_MS),
      side: 'deposit',
      ltv,
      ...(liquidationPrice !== undefined ? { liquidationPrice } : {}),
      ...(rewards && rewards.length > 0 ? { rewards } : {}),
      actions: { deposit: depositMarket.actions.deposit!, withdraw: depositMarket.actions.withdraw! },
      market: withStatus(depositMarket),
    };
    out.push(deposit);
    positions.push({ position: deposit, openedAtMs, valuation: { kind: 'token', assetId: assetIdOf(depositMarket.token) } });
    if (borrowMarket && borrowToken) {
      const borrow: LendingPosition = {
        id: newId('lending'),
        type: 'lending',
        marketId: borrowMarket.id,
        ownerAddress: owner,
        bundleId: bundleId!,
        websiteUrl: borrowMarket.websiteUrl,
        amount: units(borrowToken, depositUsd * ltvRatio, WORLD_REFERENCE_MS),
        side: 'borrow',
        ltv,
        ...(liquidationPrice !== undefined ? { liquidationPrice } : {}),
        actions: { borrow: borrowMarket.actions.borrow!, repay: borrowMarket.actions.repay! },
        market: withStatus(borrowMarket),
      };
      out.push(borrow);
      positions.push({ position: borrow, openedAtMs, valuation: { kind: 'token', assetId: assetIdOf(borrowToken) } });
    }
    return out;
  };

  const addYield = (owner: string): YieldPosition => {
    const m = rng.pick(yieldMarkets);
    const usd = rng.logFloat(10, 120_000);
    const rewards =
      m.rewards && rng.chance(0.7)
        ? m.rewards.map((r) => ({ tokenAddress: r.token.address, amount: units(r.token, usd * r.apy * rng.float(0.02, 0.2), WORLD_REFERENCE_MS) }))
        : undefined;
    const p: YieldPosition = {
      id: newId('yield'),
      type: 'yield',
      marketId: m.id,
      ownerAddress: owner,
      websiteUrl: m.websiteUrl,
      amount: units(m.token, usd, WORLD_REFERENCE_MS),
      ...(rewards ? { rewards } : {}),
      market: withStatus(m),
    };
    positions.push({ position: p, openedAtMs: openTime(), valuation: { kind: 'token', assetId: assetIdOf(m.token) } });
    return p;
  };

  const addLoop = (owner: string): LoopPosition => {
    const m = rng.pick(loopMarkets);
    const equityUsd = rng.logFloat(100, 100_000);
    const leverage = round(rng.float(1.3, Math.max(1.4, m.maxLeverage * 0.85)), 2);
    const ltv = round(1 - 1 / leverage, 4);
    const pA = priceAt(assetIdOf(m.tokenA), WORLD_REFERENCE_MS);
    const pB = priceAt(assetIdOf(m.tokenB), WORLD_REFERENCE_MS);
    const aUsd = equityUsd * leverage;
    const bUsd = aUsd - equityUsd;
    const amountTokenA = sig(aUsd / pA, 8);
    const amountTokenB = sig(bUsd / pB, 8);
    const p: LoopPosition = {
      id: newId('loop'),
      type: 'loop',
      marketId: m.id,
      ownerAddress: owner,
      bundleId: `${m.provider.id}.loop.${rng.solanaAddress()}`,
      websiteUrl: m.websiteUrl,
      amount: sig(equityUsd / pA, 8),
      amountTokenA,
      amountTokenB,
      ltv,
      liquidationPrice: sig((pB * amountTokenB) / (amountTokenA * m.liquidationLtv), 6),
      leverage,
      additionalData: { marketName: m.additionalData?.marketName },
      market: withStatus(m),
    };
    positions.push({ position: p, openedAtMs: openTime(), valuation: { kind: 'loop', assetIdA: assetIdOf(m.tokenA), assetIdB: assetIdOf(m.tokenB) } });
    return p;
  };

  const addPerp = (owner: string, side?: 'long' | 'short'): PerpetualPosition => {
    const m = rng.pick(perpMarkets);
    const openedAtMs = openTime();
    const entryPrice = sig(priceAt(assetIdOf(m.tokenA), openedAtMs), 8);
    const leverage = round(rng.float(1.1, Math.min(m.maxLeverage, 20)), 1);
    const collateralUsd = round(rng.logFloat(50, 50_000), 2);
    const p: PerpetualPosition = {
      id: newId('perpetual'),
      type: 'perpetual',
      marketId: m.id,
      ownerAddress: owner,
      websiteUrl: m.websiteUrl,
      amount: sig((collateralUsd * leverage) / entryPrice, 8),
      side: side ?? (rng.chance(0.6) ? 'long' : 'short'),
      leverage,
      entryPrice,
      additionalData: { collateralUsd },
      market: withStatus(m),
    };
    positions.push({ position: p, openedAtMs, valuation: { kind: 'perp', assetId: assetIdOf(m.tokenA), collateralUsd } });
    return p;
  };

  /**
   * A reward entry's common fields, in the contract's order, then `rest()`'s: its ids and amount are
   * drawn first, so the world of a seed stays what it was.
   */
  const rewardEntry = (
    owner: string,
    source: { marketId: string; websiteUrl?: string; bundleId?: string },
    token: Token,
    maxUsd: number,
    rest: () => Partial<RewardPosition>,
  ): RewardPosition => ({
    id: newId('reward'),
    type: 'reward',
    marketId: source.marketId,
    ownerAddress: owner,
    ...(source.bundleId ? { bundleId: source.bundleId } : {}),
    websiteUrl: source.websiteUrl,
    amount: units(token, rng.logFloat(0.5, maxUsd), WORLD_REFERENCE_MS),
    token,
    ...rest(),
  });

  /** A reward entry: of a live position, of a reward market, or orphaned (its position is closed). */
  const addReward = (owner: string, parents: (LendingPosition | YieldPosition | LoopPosition)[], kind?: 'parent' | 'market' | 'orphan'): RewardPosition => {
    const which = kind ?? rng.weighted<'parent' | 'market' | 'orphan'>([['parent', parents.length > 0 ? 2 : 0], ['market', 2], ['orphan', 1]]);
    const openedAtMs = openTime();
    let p: RewardPosition;
    if (which === 'parent' && parents.length > 0) {
      const parent = rng.pick(parents);
      const token = parent.type === 'loop' ? parent.market.tokenA : parent.market.rewards?.[0]?.token ?? parent.market.token;
      p = rewardEntry(owner, parent, token, 800, () => ({
        position: { id: parent.id, type: parent.type, ...(parent.type === 'lending' ? { side: parent.side } : {}) },
        market: parent.market,
      }));
    } else if (which === 'market' || parents.length === 0 && which === 'parent') {
      const m = rng.pick(rewardMarkets);
      p = rewardEntry(owner, { marketId: m.id, websiteUrl: m.websiteUrl }, m.token, 2_000, () => ({ market: withStatus(m) }));
    } else {
      // The position that earned it is closed: the entry stays listed, pointing at an id that is gone.
      const m = rng.chance(0.5) ? rng.pick(lendingMarkets) : rng.pick(yieldMarkets);
      p = rewardEntry(owner, { marketId: m.id, websiteUrl: m.websiteUrl }, m.rewards?.[0]?.token ?? m.token, 500, () => ({
        position: { id: newId(m.type), type: m.type, ...(m.type === 'lending' ? { side: 'deposit' } : {}) },
        additionalData: { parentPositionClosed: true },
        ...(rng.chance(0.75) ? { market: withStatus(m) } : {}),
      }));
    }
    positions.push({ position: p, openedAtMs, valuation: { kind: 'token', assetId: assetIdOf(p.token) } });
    return p;
  };

  const addPrediction = (owner: string, status?: MarketStatus): PredictionPosition => {
    const pool = status ? predictionMarkets.filter((m) => m.status === status) : predictionMarkets;
    const m = rng.pick(pool.length > 0 ? pool : predictionMarkets);
    const side: 'yes' | 'no' = rng.chance(0.6) ? 'yes' : 'no';
    const token = (side === 'yes' ? m.yesToken : m.noToken)!;
    const assetId = assetIdOf(token);
    const from = Math.max((m.openTime ?? 0) * 1000, DATA_START_MS) + HOUR;
    const to = Math.min((m.closeTime ?? 0) * 1000, WORLD_REFERENCE_MS) - HOUR;
    const trades = makeTrades(rng, from, Math.max(from + DAY, to), (t) => priceAt(assetId, t));
    const cb = averageCostBasis(trades);
    const p: PredictionPosition = {
      id: newId('prediction'),
      type: 'prediction',
      marketId: m.id,
      ownerAddress: owner,
      websiteUrl: m.websiteUrl,
      amount: round(cb.quantity, 6),
      side,
      token,
      costBasisAvg: round(cb.costBasisAvg, 6),
      costBasisTotal: round(cb.costBasisTotal, 6),
      market: withStatus(m),
    };
    positions.push({ position: p, openedAtMs: Date.parse(trades[0]!.timestamp), valuation: { kind: 'prediction', assetId, trades } });
    return p;
  };

  const wallets: { address: string }[] = [];
  const demoWallets: string[] = [];
  for (let w = 0; w < WALLET_COUNT; w++) {
    const owner = rng.solanaAddress();
    wallets.push({ address: owner });
    const parents: (LendingPosition | YieldPosition | LoopPosition)[] = [];
    if (w < DEMO_COUNT) {
      // Demo wallets: several positions of every type, every prediction status, orphaned rewards.
      demoWallets.push(owner);
      for (let i = 0; i < 3; i++) parents.push(...addLending(owner));
      for (let i = 0; i < 4; i++) parents.push(addYield(owner));
      for (let i = 0; i < 2; i++) parents.push(addLoop(owner));
      addPerp(owner, 'long');
      addPerp(owner, 'short');
      addPerp(owner);
      addReward(owner, parents, 'parent');
      addReward(owner, parents, 'market');
      addReward(owner, parents, 'orphan');
      addReward(owner, parents, 'orphan');
      addPrediction(owner, 'open');
      addPrediction(owner, 'open');
      addPrediction(owner, 'closed');
      addPrediction(owner, 'settled');
      addPrediction(owner);
      continue;
    }
    if (rng.chance(0.03)) continue; // a few wallets hold nothing
    const groups = rng.int(1, 8);
    for (let g = 0; g < groups; g++) {
      const type = rng.weighted<MarketType>([
        ['lending', 3],
        ['yield', 3],
        ['prediction', 2.5],
        ['perpetual', 1.5],
        ['loop', 1.5],
        ['reward', 1.5],
      ]);
      if (type === 'lending') parents.push(...addLending(owner));
      else if (type === 'yield') parents.push(addYield(owner));
      else if (type === 'loop') parents.push(addLoop(owner));
      else if (type === 'perpetual') addPerp(owner);
      else if (type === 'reward') addReward(owner, parents);
      else addPrediction(owner);
    }
  }
  return { wallets, demoWallets, positions };
}

/**
 * A plausible trade list between `from` and `to`: a first buy, then buys, partial sells, transfers
 * out and sometimes a full exit followed by a fresh buy. Always ends holding shares.
 */
function makeTrades(rng: Rng, from: number, to: number, priceAt: (t: number) => number): PredictionTrade[] {
  const n = rng.int(1, 7);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(from + Math.floor(rng.next() * (to - from)));
  times.sort((a, b) => a - b);
  const trades: PredictionTrade[] = [];
  let quantity = 0;
  const px = (t: number): number => round(Math.min(0.99, Math.max(0.01, priceAt(t) + rng.float(-0.01, 0.01))), 2);
  const snap = (t: number): number => Math.floor(t / 1000) * 1000;
  for (const t of times) {
    const timestamp = iso(snap(t));
    if (quantity === 0) {
      const q = rng.int(10, 2_000);
      trades.push({ timestamp, kind: 'buy', quantity: q, price: px(t) });
      quantity += q;
      continue;
    }
    const action = rng.weighted<'buy' | 'sell' | 'exit' | 'transfer_out'>([
      ['buy', 4],
      ['sell', 2.5],
      ['exit', 1],
      ['transfer_out', 1],
    ]);
    if (action === 'buy') {
      const q = rng.int(10, 1_500);
      trades.push({ timestamp, kind: 'buy', quantity: q, price: px(t) });
      quantity += q;
    } else if (action === 'exit') {
      trades.push({ timestamp, kind: 'sell', quantity, price: px(t) });
      quantity = 0;
    } else {
      const q = Math.max(1, Math.floor(quantity * rng.float(0.1, 0.6)));
      trades.push({ timestamp, kind: action === 'sell' ? 'sell' : 'transfer_out', quantity: q, price: action === 'sell' ? px(t) : 0 });
      quantity -= q;
    }
  }
  if (quantity === 0) {
    const t = Math.min(to, (times[times.length - 1] ?? from) + HOUR);
    trades.push({ timestamp: iso(snap(t)), kind: 'buy', quantity: rng.int(10, 1_000), price: px(t) });
  }
  return trades;
}
