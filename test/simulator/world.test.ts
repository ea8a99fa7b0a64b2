import { describe, expect, it } from 'vitest';
import {
  averageCostBasis,
  createWorld,
  DATA_START_MS,
  generateWorld,
  MARKET_TYPES,
  type Market,
  type PredictionTrade,
  type Token,
} from '../../src/simulator/world/index.js';

const world = generateWorld(42);

function marketTokens(m: Market): Token[] {
  switch (m.type) {
    case 'yield':
      return [m.token, ...(m.rewards ?? []).map((r) => r.token)];
    case 'lending':
      return [m.token, ...(m.borrowToken ? [m.borrowToken] : []), ...(m.rewards ?? []).map((r) => r.token)];
    case 'loop':
    case 'perpetual':
      return [m.tokenA, m.tokenB];
    case 'reward':
      return [m.token];
    case 'prediction':
      return [m.yesToken!, m.noToken!];
  }
}

describe('world generation', () => {
  it('is deterministic from the seed', () => {
    const a = createWorld(1234);
    const b = createWorld(1234);
    expect(JSON.stringify(a.markets)).toBe(JSON.stringify(b.markets));
    expect(JSON.stringify(a.assets)).toBe(JSON.stringify(b.assets));
    expect(JSON.stringify(a.positions)).toBe(JSON.stringify(b.positions));
    expect(a.demoWallets).toEqual(b.demoWallets);
    expect(JSON.stringify(createWorld(1235).markets)).not.toBe(JSON.stringify(a.markets));
    expect(generateWorld(42)).toBe(world); // cached per seed
  });

  it('has at least 300 assets over at least 5 chains, stocks and RWAs, well-known ones first', () => {
    expect(world.assets.length).toBeGreaterThanOrEqual(300);
    const chains = new Set(world.assets.map((a) => a.chain));
    expect(chains.size).toBeGreaterThanOrEqual(5);
    for (const c of ['solana', 'ethereum', 'base', 'bitcoin', 'stock']) expect(chains.has(c)).toBe(true);
    expect(world.assets[0]!.symbol).toBe('SOL');
    for (const id of [
      'solana:So11111111111111111111111111111111111111112',
      'solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      'solana:J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn',
      'bitcoin:native',
      'stock:AAPL',
      'stock:TSLA',
      'stock:NVDA',
      'ethereum:0x2260fac5e5542a773aa44fbcfedf7c193bc2c599',
    ]) {
      expect(world.assetsById.has(id), id).toBe(true);
    }
    expect(world.assetsById.get('stock:AAPL')!.type).toBe('stock');
    expect(world.assets.some((a) => a.type === 'rwa' && a.tags.includes('t-bill'))).toBe(true);
    const ids = new Set(world.assets.map((a) => a.id));
    expect(ids.size).toBe(world.assets.length);
    for (const a of world.assets) {
      const [chain, ...rest] = a.id.split(':');
      expect(chain).toMatch(/^[a-z0-9-]{1,32}$/);
      expect(rest.join(':')).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/);
      if (a.chain === 'solana') expect(a.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      if (a.chain === 'ethereum') expect(a.id).toMatch(/^ethereum:0x[0-9a-f]{40}$/);
      if (a.imageUrl) expect(a.imageUrl).toMatch(/^https:\/\/cdn\./);
    }
  });

  it('has at least 600 markets of all six types over at least 8 providers, tokens all known Solana assets', () => {
    expect(world.markets.length).toBeGreaterThanOrEqual(600);
    expect(new Set(world.markets.map((m) => m.type))).toEqual(new Set(MARKET_TYPES));
    expect(new Set(world.markets.map((m) => m.provider.id)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(world.markets.map((m) => m.id)).size).toBe(world.markets.length);
    for (const m of world.markets) {
      expect(m.id.startsWith(`${m.provider.id}.`)).toBe(true);
      expect(m.provider.icon).toMatch(/^https:\/\//);
      expect(JSON.stringify(m)).not.toContain('oraclePrice');
      for (const t of marketTokens(m)) {
        const asset = world.assetsById.get(`solana:${t.address}`);
        expect(asset, `${m.id} token ${t.symbol}`).toBeDefined();
        expect(asset!.symbol).toBe(t.symbol);
      }
      if (m.type === 'loop') expect(m.additionalData?.marketName).toBeTruthy();
    }
    const statuses = new Set(world.markets.flatMap((m) => (m.type === 'prediction' ? [m.status] : [])));
    expect(statuses).toEqual(new Set(['open', 'closed', 'settled']));
  });

  it('has at least 200 wallets holding positions of every type', () => {
    expect(world.wallets.length).toBeGreaterThanOrEqual(200);
    expect(new Set(world.positions.map((r) => r.position.type))).toEqual(new Set(MARKET_TYPES));
    let multi = 0;
    for (const w of world.wallets) {
      const types = new Set((world.positionsByOwner.get(w.address) ?? []).map((r) => r.position.type));
      if (types.size >= 2) multi++;
    }
    expect(multi).toBeGreaterThan(100);
    expect(world.demoWallets).toHaveLength(3);
    expect(world.wallets.slice(0, 3).map((w) => w.address)).toEqual(world.demoWallets);
    for (const d of world.demoWallets) {
      const types = new Set(world.positionsByOwner.get(d)!.map((r) => r.position.type));
      expect(types).toEqual(new Set(MARKET_TYPES));
    }
    for (const { position: p } of world.positions) {
      if (p.type !== 'reward' || p.market) expect(['open', 'closed', 'settled']).toContain(p.market!.status);
      if (p.type === 'lending') {
        expect(p.ltv).toBeGreaterThanOrEqual(0);
        expect(p.ltv).toBeLessThanOrEqual(100);
      }
    }
    // Both lending sides, long and short, reward entries whose parent position is gone.
    const lendingSides = new Set(world.positions.flatMap((r) => (r.position.type === 'lending' ? [r.position.side] : [])));
    expect(lendingSides).toEqual(new Set(['deposit', 'borrow']));
    const perpSides = new Set(world.positions.flatMap((r) => (r.position.type === 'perpetual' ? [r.position.side] : [])));
    expect(perpSides).toEqual(new Set(['long', 'short']));
    const orphans = world.positions.filter(
      (r) => r.position.type === 'reward' && r.position.position?.id && !world.positionsById.has(r.position.position.id),
    );
    expect(orphans.length).toBeGreaterThan(0);
  });

  it('computes prediction cost basis from each position’s trades, including full exits', () => {
    let exits = 0;
    for (const r of world.positions) {
      if (r.valuation.kind !== 'prediction' || r.position.type !== 'prediction') continue;
      const cb = averageCostBasis(r.valuation.trades);
      expect(r.position.amount).toBeCloseTo(cb.quantity, 6);
      expect(r.position.costBasisTotal).toBeCloseTo(cb.costBasisTotal, 5);
      expect(r.position.costBasisAvg).toBeCloseTo(cb.costBasisAvg, 5);
      expect(cb.quantity).toBeGreaterThan(0);
      const trades = r.valuation.trades;
      let q = 0;
      trades.forEach((t, i) => {
        q = t.kind === 'buy' ? q + t.quantity : q - t.quantity;
        if (q === 0 && i < trades.length - 1) exits++;
      });
    }
    expect(exits).toBeGreaterThan(0);
  });
});

describe('averageCostBasis', () => {
  it('follows the average cost method on a hand-made trade list', () => {
    const trades: PredictionTrade[] = [
      { timestamp: '2025-11-01T00:00:00Z', kind: 'buy', quantity: 100, price: 0.4 },
      { timestamp: '2025-11-02T00:00:00Z', kind: 'buy', quantity: 100, price: 0.6 },
    ];
    const close = (n: number) => expect.closeTo(n, 10);
    /** The cost basis once `trade` is added to the list. */
    const after = (trade: PredictionTrade) => {
      trades.push(trade);
      return averageCostBasis(trades);
    };
    expect(averageCostBasis(trades)).toMatchObject({ quantity: 200, costBasisTotal: close(100), costBasisAvg: close(0.5), realizedPnl: 0 });

    // A partial sell reduces quantity and committed capital at the average price, realising the difference.
    expect(after({ timestamp: '2025-11-03T00:00:00Z', kind: 'sell', quantity: 50, price: 0.7 })).toMatchObject({
      quantity: 150,
      costBasisTotal: close(75),
      costBasisAvg: close(0.5),
      realizedPnl: close(10),
    });

    // A transfer out reduces quantity at the average price and realises nothing.
    expect(after({ timestamp: '2025-11-04T00:00:00Z', kind: 'transfer_out', quantity: 50, price: 0 })).toMatchObject({
      quantity: 100,
      costBasisTotal: close(50),
      costBasisAvg: close(0.5),
      realizedPnl: close(10),
    });

    // A full exit resets both to zero.
    expect(after({ timestamp: '2025-11-05T00:00:00Z', kind: 'sell', quantity: 100, price: 0.3 })).toMatchObject({
      quantity: 0,
      costBasisTotal: 0,
      costBasisAvg: 0,
      realizedPnl: close(-10),
    });

    // The next buy starts a fresh average.
    expect(after({ timestamp: '2025-11-06T00:00:00Z', kind: 'buy', quantity: 10, price: 0.9 })).toMatchObject({
      quantity: 10,
      costBasisTotal: close(9),
      costBasisAvg: close(0.9),
    });
  });

  it('caps a sell larger than the holding and handles an empty list', () => {
    expect(averageCostBasis([])).toEqual({ quantity: 0, costBasisAvg: 0, costBasisTotal: 0, realizedPnl: 0 });
    const cb = averageCostBasis([
      { timestamp: '2025-11-01T00:00:00Z', kind: 'buy', quantity: 10, price: 0.2 },
      { timestamp: '2025-11-02T00:00:00Z', kind: 'sell', quantity: 25, price: 0.5 },
    ]);
    expect(cb.quantity).toBe(0);
    expect(cb.costBasisTotal).toBe(0);
    expect(cb.realizedPnl).toBeCloseTo(3, 10);
  });
});

describe('time series', () => {
  const SOL = 'solana:So11111111111111111111111111111111111111112';

  it('are pure functions of (seed, id, time) and smooth', () => {
    const t = Date.parse('2026-03-01T12:00:00Z');
    const p = world.priceAt(SOL, t)!;
    expect(p).toBeGreaterThan(0);
    expect(world.priceAt(SOL, new Date(t))).toBe(p);
    expect(createWorld(42).priceAt(SOL, t)).toBe(p);
    expect(createWorld(43).priceAt(SOL, t)).not.toBe(p);
    const next = world.priceAt(SOL, t + 60_000)!;
    expect(Math.abs(next / p - 1)).toBeLessThan(0.02);
    expect(world.priceAt('solana:unknown', t)).toBeUndefined();
  });

  it('gives a current price equal to the series at now, stablecoins near 1, LSTs above SOL', () => {
    const now = Date.now();
    const asset = world.assetAt(SOL, now)!;
    expect(asset.price!.usd).toBeCloseTo(world.priceAt(SOL, now)!, 3);
    expect(asset.price!.change24h).toBeCloseTo(world.priceAt(SOL, now)! / world.priceAt(SOL, now - 86_400_000)! - 1, 5);
    expect(world.priceAt('solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', now)).toBeCloseTo(1, 2);
    expect(world.priceAt('solana:J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn', now)!).toBeGreaterThan(world.priceAt(SOL, now)!);
  });

  it('values positions from 2025-10-08 on: zero before they open, the listing value at now', () => {
    const now = Date.now();
    for (const r of world.positionsByOwner.get(world.demoWallets[0]!)!) {
      expect(world.positionValueAt(r, DATA_START_MS)).toEqual({ amount: 0, amountUsd: 0 });
      const live = world.positionAt(r, now);
      const v = world.positionValueAt(r, now);
      expect(live.amountUsd).toBeCloseTo(v.amountUsd!, 4);
    }
    const m = world.markets.find((x) => x.type === 'lending')!;
    const point = world.marketPointAt(m.id, Date.parse('2026-01-01T00:00:00Z'))!;
    expect(point.depositApy).toBeGreaterThanOrEqual(0);
    expect(point.borrowApy).toBeGreaterThanOrEqual(0);
  });
});
