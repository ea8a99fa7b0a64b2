import { describe, expect, it } from 'vitest';
import type { Market } from '../../src/simulator/world/index.js';
import { sim, USDC, get, qs, ALL_STATUSES, expect400, useMarketsSimulator } from '../helpers/markets-simulator.js';

useMarketsSimulator();

describe('GET /v0/markets', () => {
  it('answers the first page with the default limit of 50 and a cursor', async () => {
    const r = await get<{ markets: Market[]; cursor: string | null }>('/v0/markets');
    expect(r.status).toBe(200);
    expect(r.body.markets).toHaveLength(50);
    expect(typeof r.body.cursor).toBe('string');
    for (const m of r.body.markets) {
      expect(m).toMatchObject({ id: expect.any(String), type: expect.any(String), productName: expect.any(String) });
      expect(m.provider).toEqual({ id: expect.any(String), name: expect.any(String), icon: expect.stringMatching(/^https:\/\//) });
    }
  });

  it('pages to the end with no duplicates (at least 600 markets), limit may change between pages', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let limit = 200;
    let pages = 0;
    do {
      const r: { status: number; body: { markets: Market[]; cursor: string | null } } = await get(
        '/v0/markets' + qs({ limit, filters: ALL_STATUSES, ...(cursor ? { cursor } : {}) }),
      );
      expect(r.status).toBe(200);
      expect(r.body.markets.length).toBeLessThanOrEqual(limit);
      ids.push(...r.body.markets.map((m) => m.id));
      cursor = r.body.cursor;
      limit = limit === 200 ? 137 : 200;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(cursor).toBeNull();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(sim.world.markets.length);
    expect(ids.length).toBeGreaterThanOrEqual(600);
  });

  it('lists only open prediction markets by default; non-prediction markets are unaffected by the filter', async () => {
    const def = await get<{ markets: Market[] }>('/v0/markets?type=prediction&limit=200');
    expect(def.body.markets.length).toBeGreaterThan(0);
    for (const m of def.body.markets) expect(m.type === 'prediction' && m.status).toBe('open');

    const settled = await get<{ markets: Market[] }>('/v0/markets' + qs({ type: 'prediction', limit: 200, filters: JSON.stringify({ prediction: { status: 'settled' } }) }));
    expect(settled.body.markets.length).toBeGreaterThan(0);
    for (const m of settled.body.markets) {
      expect(m.type === 'prediction' && m.status).toBe('settled');
      expect(m.type === 'prediction' && m.result).toMatch(/^(yes|no)$/);
    }

    const lendingCount = sim.world.markets.filter((m) => m.type === 'lending').length;
    const mixed = await get<{ markets: Market[] }>(
      '/v0/markets' + qs({ type: 'lending,prediction', limit: 200, filters: JSON.stringify({ prediction: { status: ['closed'] } }) }),
    );
    const all: Market[] = [...mixed.body.markets];
    let cursor = (mixed.body as any).cursor as string | null;
    while (cursor) {
      const r = await get('/v0/markets' + qs({ type: 'lending,prediction', limit: 200, cursor, filters: JSON.stringify({ prediction: { status: ['closed'] } }) }));
      all.push(...r.body.markets);
      cursor = r.body.cursor;
    }
    expect(all.filter((m) => m.type === 'lending')).toHaveLength(lendingCount);
    for (const m of all) if (m.type === 'prediction') expect(m.status).toBe('closed');
  });

  it('filters by type, provider and asset (token/tokenA/tokenB)', async () => {
    const r = await get<{ markets: Market[] }>('/v0/markets?type=loop,perpetual&provider=drift,kamino&limit=200');
    expect(r.body.markets.length).toBeGreaterThan(0);
    for (const m of r.body.markets) {
      expect(['loop', 'perpetual']).toContain(m.type);
      expect(['drift', 'kamino']).toContain(m.provider.id);
    }
    const a = await get<{ markets: Market[] }>(`/v0/markets?asset=${USDC}&limit=200`);
    expect(a.body.markets.length).toBeGreaterThan(10);
    for (const m of a.body.markets) {
      const addrs = 'token' in m ? [m.token.address] : 'tokenA' in m ? [m.tokenA.address, m.tokenB.address] : [];
      expect(addrs).toContain(USDC);
    }
    const none = await get('/v0/markets?provider=nobody');
    expect(none.body).toEqual({ markets: [], cursor: null });
  });

  it('serves every market type with the contract fields (and never oraclePrice)', async () => {
    const r = await get<{ markets: Market[] }>('/v0/markets?type=lending&limit=200');
    const text = JSON.stringify(r.body);
    expect(text).not.toContain('oraclePrice');
    const lending = r.body.markets[0]!;
    expect(lending).toMatchObject({
      type: 'lending',
      token: { address: expect.any(String), symbol: expect.any(String), decimals: expect.any(Number) },
      depositApy: expect.any(Number),
      baseDepositApy: expect.any(Number),
      baseDepositApy30d: expect.any(Number),
      baseDepositApy90d: expect.any(Number),
      baseDepositApy180d: expect.any(Number),
      borrowApy: expect.any(Number),
      totalDeposit: expect.any(Number),
      totalBorrow: expect.any(Number),
      maxBorrow: expect.any(Number),
      maxLtv: expect.any(Number),
      liquidationLtv: expect.any(Number),
      liquidationPenalty: expect.any(Number),
      actions: { deposit: { blinkUrl: expect.stringMatching(/^https:\/\//) } },
    });
    const loop = (await get<{ markets: Market[] }>('/v0/markets?type=loop&limit=1')).body.markets[0]!;
    expect(loop).toMatchObject({ type: 'loop', tokenA: expect.any(Object), tokenB: expect.any(Object), maxLeverage: expect.any(Number), additionalData: { marketName: expect.any(String) } });
    const perp = (await get<{ markets: Market[] }>('/v0/markets?type=perpetual&limit=1')).body.markets[0]!;
    expect(perp).toMatchObject({ type: 'perpetual', liquidity: { longUsd: expect.any(Number), shortUsd: expect.any(Number) } });
    const reward = (await get<{ markets: Market[] }>('/v0/markets?type=reward&limit=1')).body.markets[0]!;
    expect(reward).toMatchObject({ type: 'reward', token: expect.any(Object), rewardApy: expect.any(Number) });
    const yieldM = (await get<{ markets: Market[] }>('/v0/markets?type=yield&limit=1')).body.markets[0]!;
    expect(yieldM).toMatchObject({ type: 'yield', token: expect.any(Object), depositApy: expect.any(Number) });
    const pred = (await get<{ markets: Market[] }>('/v0/markets?type=prediction&limit=1')).body.markets[0]!;
    expect(pred).toMatchObject({ type: 'prediction', title: expect.any(String), status: 'open', yesBid: expect.any(Number), yesToken: expect.any(Object), noToken: expect.any(Object) });
    if (pred.type === 'prediction') {
      expect(Number.isInteger(pred.closeTime)).toBe(true);
      expect(pred.closeTime!).toBeLessThan(1e11); // epoch seconds
    }
  });

  it('validates limit, type, filters and cursors', async () => {
    await expect400('/v0/markets?limit=0');
    await expect400('/v0/markets?limit=201');
    await expect400('/v0/markets?limit=abc');
    expect((await get('/v0/markets?limit=200')).status).toBe(200);
    expect((await get('/v0/markets?limit=1')).status).toBe(200);
    await expect400('/v0/markets?type=lending,bogus');
    await expect400('/v0/markets?filters=' + encodeURIComponent('{not json'));
    await expect400('/v0/markets?filters=' + encodeURIComponent('{"prediction":{"status":"pending"}}'));
    await expect400('/v0/markets?cursor=garbage!');

    const first = await get('/v0/markets?type=lending&limit=10');
    const cursor = first.body.cursor as string;
    expect((await get(`/v0/markets?type=lending&limit=25&cursor=${cursor}`)).status).toBe(200);
    await expect400(`/v0/markets?type=yield&limit=10&cursor=${cursor}`);
    await expect400(`/v0/markets?type=lending&provider=kamino&limit=10&cursor=${cursor}`);
    await expect400(`/v0/markets?type=lending&asset=${USDC}&limit=10&cursor=${cursor}`);
    await expect400('/v0/markets' + qs({ type: 'lending', limit: 10, cursor, filters: JSON.stringify({ prediction: { status: 'closed' } }) }));
  });
});
