import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/simulator/world/index.js';
import { sim, get, qs, expect400, useMarketsSimulator } from '../helpers/markets-simulator.js';

useMarketsSimulator();

describe('GET /v0/positions/owners', () => {
  it('lists a wallet’s positions of every type, each embedding its market with status', async () => {
    const wallet = sim.world.demoWallets[0]!;
    const r = await get<{ positions: Position[] }>(`/v0/positions/owners?walletAddresses=${wallet}`);
    expect(r.status).toBe(200);
    const types = new Set(r.body.positions.map((p) => p.type));
    expect(types).toEqual(new Set(['yield', 'lending', 'loop', 'perpetual', 'reward', 'prediction']));
    for (const p of r.body.positions) {
      expect(p.ownerAddress).toBe(wallet);
      expect(p).toMatchObject({ id: expect.any(String), marketId: expect.any(String), amount: expect.any(Number), amountUsd: expect.any(Number) });
      if (p.market) {
        expect(['open', 'closed', 'settled']).toContain(p.market.status);
        if (p.type !== 'reward') expect(p.market.id).toBe(p.marketId);
      }
      if (p.type === 'lending') {
        expect(['deposit', 'borrow']).toContain(p.side);
        expect(p.ltv).toBeGreaterThanOrEqual(0);
        expect(p.ltv).toBeLessThanOrEqual(100);
      }
      if (p.type === 'perpetual') expect(p).toMatchObject({ side: expect.stringMatching(/^(long|short)$/), leverage: expect.any(Number), entryPrice: expect.any(Number), markPrice: expect.any(Number) });
      if (p.type === 'loop') expect(p).toMatchObject({ amountTokenA: expect.any(Number), amountTokenB: expect.any(Number), amountTokenAUsd: expect.any(Number) });
      if (p.type === 'prediction') {
        expect(p).toMatchObject({ side: expect.stringMatching(/^(yes|no)$/), costBasisAvg: expect.any(Number), costBasisTotal: expect.any(Number) });
        expect(p.pnl).toMatchObject({ total: expect.any(Number), realized: expect.any(Number), unrealized: expect.any(Number) });
        expect(p.pnl!.total).toBeCloseTo(p.pnl!.realized + p.pnl!.unrealized, 4);
      }
      if (p.type === 'reward') expect(p.token).toMatchObject({ address: expect.any(String), symbol: expect.any(String) });
    }
    const sides = new Set(r.body.positions.flatMap((p) => (p.type === 'perpetual' ? [p.side] : [])));
    expect(sides).toEqual(new Set(['long', 'short']));
    const orphan = r.body.positions.find((p) => p.type === 'reward' && p.position?.id && !r.body.positions.some((q) => q.id === p.position!.id));
    expect(orphan).toBeDefined();
  });

  it('filters by type, market.status and bundleIds; unknown wallets give an empty list', async () => {
    const [w0, w1, w2] = sim.world.demoWallets;
    const lending = await get<{ positions: Position[] }>(`/v0/positions/owners?walletAddresses=${w0},${w1}&type=lending`);
    expect(lending.body.positions.length).toBeGreaterThan(0);
    expect(new Set(lending.body.positions.map((p) => p.type))).toEqual(new Set(['lending']));
    expect(new Set(lending.body.positions.map((p) => p.ownerAddress))).toEqual(new Set([w0, w1]));

    const settled = await get<{ positions: Position[] }>(`/v0/positions/owners?walletAddresses=${w0},${w1},${w2}&market.status=settled`);
    expect(settled.body.positions.length).toBeGreaterThan(0);
    for (const p of settled.body.positions) expect(p.market!.status).toBe('settled');

    const bundle = lending.body.positions.find((p) => p.bundleId)!.bundleId!;
    const byBundle = await get<{ positions: Position[] }>(`/v0/positions/owners?walletAddresses=${w0},${w1}&bundleIds=${bundle}`);
    expect(byBundle.body.positions.length).toBeGreaterThanOrEqual(2);
    for (const p of byBundle.body.positions) expect(p.bundleId).toBe(bundle);
    expect(new Set(byBundle.body.positions.map((p) => (p.type === 'lending' ? p.side : p.type)))).toContain('borrow');

    expect((await get('/v0/positions/owners?walletAddresses=11111111111111111111111111111111')).body).toEqual({ positions: [] });
  });

  it('validates walletAddresses, type and market.status', async () => {
    const w = sim.world.demoWallets[0]!;
    await expect400('/v0/positions/owners');
    await expect400(`/v0/positions/owners?walletAddresses=${w}&type=lending,yield`);
    await expect400(`/v0/positions/owners?walletAddresses=${w}&type=bogus`);
    await expect400(`/v0/positions/owners?walletAddresses=${w}&market.status=pending`);
    const wallets = sim.world.wallets.map((x) => x.address);
    await expect400(`/v0/positions/owners?walletAddresses=${wallets.slice(0, 26).join(',')}`);
    const ok = await get(`/v0/positions/owners?walletAddresses=${wallets.slice(0, 25).join(',')}`);
    expect(ok.status).toBe(200);
  });
});

describe('GET /v0/positions/history', () => {
  it('answers snapshots per position at the resolution (default 1h), zero before a position opened', async () => {
    const wallet = sim.world.demoWallets[1]!;
    const r = await get(`/v0/positions/history` + qs({ walletAddress: wallet, startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-02T00:00:00Z' }));
    expect(r.status).toBe(200);
    const positions = r.body.data.positions;
    expect(positions.length).toBe(sim.world.positionsByOwner.get(wallet)!.length);
    for (const p of positions) {
      expect(p).toMatchObject({ id: expect.any(String), type: expect.any(String), marketId: expect.any(String) });
      expect(p.history).toHaveLength(25);
      expect(p.history[0]).toEqual({ timestamp: '2026-11-01T00:00:00.000Z', amount: expect.any(Number), amountUsd: expect.any(Number) });
    }
    const early = await get(`/v0/positions/history` + qs({ walletAddress: wallet, startTime: '2025-10-08T00:00:00Z', endTime: '2025-10-09T00:00:00Z', resolution: '1d' }));
    for (const p of early.body.data.positions) expect(p.history[0]).toEqual({ timestamp: '2025-10-08T00:00:00.000Z', amount: 0, amountUsd: 0 });

    const one = positions[0].id as string;
    const filtered = await get(`/v0/positions/history` + qs({ walletAddress: wallet, startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-01T01:00:00Z', resolution: '5m', positionIds: one }));
    expect(filtered.body.data.positions.map((p: { id: string }) => p.id)).toEqual([one]);
    expect(filtered.body.data.positions[0].history).toHaveLength(13);

    // Exactly 2000 points is allowed.
    const start = Date.parse('2026-10-01T00:00:00Z');
    const end = start + 1999 * 60_000;
    const max = await get(`/v0/positions/history` + qs({ walletAddress: wallet, startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString(), resolution: '1m', positionIds: one }));
    expect(max.status).toBe(200);
    expect(max.body.data.positions[0].history).toHaveLength(2000);

    expect((await get(`/v0/positions/history?walletAddress=nobody&startTime=2026-11-01T00:00:00Z`)).body).toEqual({ data: { positions: [] } });
  });

  it('validates walletAddress, startTime, resolution and the 2000-point limit', async () => {
    const w = sim.world.demoWallets[0]!;
    await expect400('/v0/positions/history?startTime=2026-01-01T00:00:00Z');
    await expect400(`/v0/positions/history?walletAddress=${w}`);
    const before = await expect400(`/v0/positions/history?walletAddress=${w}&startTime=2025-10-07T23:59:59Z`);
    expect(before).toContain('2025-10-08');
    await expect400(`/v0/positions/history?walletAddress=${w}&startTime=2026-01-01T00:00:00Z&resolution=2h`);
    await expect400(`/v0/positions/history?walletAddress=${w},${sim.world.demoWallets[1]}&startTime=2026-01-01T00:00:00Z`);
    // 1m over two days = 2881 points.
    await expect400(`/v0/positions/history?walletAddress=${w}&startTime=2026-01-01T00:00:00Z&endTime=2026-01-03T00:00:00Z&resolution=1m`);
    // 1h (the default) from the data start to now is far more than 2000 points.
    await expect400(`/v0/positions/history?walletAddress=${w}&startTime=2025-10-08T00:00:00Z`);
  });
});
