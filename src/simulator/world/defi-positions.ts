/** Positions in the simulated lending, yield, loop, perpetual and reward markets. */
import { round, sig } from '../prng.js';
import { WORLD_REFERENCE_MS } from './series.js';
import { assetIdOf, type PositionsKit } from './position-kit.js';
import type { LendingMarket, Token } from './market-types.js';
import type { LendingPosition, LoopPosition, PerpetualPosition, RewardPosition, YieldPosition } from './position-types.js';

/** The makers of DeFi positions: each draws one (or a bundle), records it in `kit.positions` and returns it. */
export function defiPositionMakers(kit: PositionsKit) {
  const { rng, priceAt, lendingMarkets, yieldMarkets, loopMarkets, perpMarkets, rewardMarkets, withStatus, stableSymbols, groupsWithStable, isolated, positions, openTime, newId, units } = kit;

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
   * drawn first, so a field added to an entry does not change the rest of a seed's world.
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

  return { addLending, addYield, addLoop, addPerp, addReward };
}
