import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Market, Position } from '../../src/simulator/world/index.js';

let sim: Simulator;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterAll(async () => {
  await sim?.close();
});

async function get<T = any>(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sim.urls.markets}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const qs = (params: Record<string, string | number>): string =>
  '?' + Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

const ALL_STATUSES = JSON.stringify({ prediction: { status: ['open', 'closed', 'settled'] } });

async function expect400(path: string): Promise<string> {
  const r = await get(path);
  expect(r.status, path).toBe(400);
  expect(typeof r.body.error).toBe('string');
  return r.body.error;
}

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

describe('GET /v0/markets/history', () => {
  it('answers a series per known id at the requested resolution, unknown ids omitted', async () => {
    const [a, b] = sim.world.markets.filter((m) => m.type === 'lending');
    const r = await get(
      '/v0/markets/history' + qs({ marketIds: `${a!.id},nope.market,${b!.id}`, startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z', resolution: '1h' }),
    );
    expect(r.status).toBe(200);
    const markets = r.body.data.markets;
    expect(markets.map((m: { id: string }) => m.id)).toEqual([a!.id, b!.id]);
    expect(markets[0].history).toHaveLength(25);
    expect(markets[0].history[0]).toEqual({
      timestamp: '2026-01-01T00:00:00.000Z',
      depositApy: expect.any(Number),
      borrowApy: expect.any(Number),
      totalDeposit: expect.any(Number),
      totalDepositUsd: expect.any(Number),
    });
    const def = await get('/v0/markets/history' + qs({ marketIds: a!.id, startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-10T00:00:00Z' }));
    expect(def.body.data.markets[0].history).toHaveLength(10); // default 1d
    const again = await get('/v0/markets/history' + qs({ marketIds: a!.id, startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-10T00:00:00Z' }));
    expect(again.body).toEqual(def.body);
  });

  it('validates marketIds, startTime and resolution', async () => {
    const id = sim.world.markets[0]!.id;
    await expect400('/v0/markets/history?startTime=2026-01-01T00:00:00Z');
    await expect400(`/v0/markets/history?marketIds=${id}`);
    await expect400(`/v0/markets/history?marketIds=${id}&startTime=yesterday`);
    await expect400(`/v0/markets/history?marketIds=${id}&startTime=2026-01-01T00:00:00Z&resolution=5m`);
    await expect400(`/v0/markets/history?marketIds=${id}&startTime=2026-01-02T00:00:00Z&endTime=2026-01-01T00:00:00Z`);
    const ids = sim.world.markets.slice(0, 51).map((m) => m.id).join(',');
    await expect400(`/v0/markets/history?marketIds=${ids}&startTime=2026-01-01T00:00:00Z`);
    const fifty = sim.world.markets.slice(0, 50).map((m) => m.id).join(',');
    expect((await get(`/v0/markets/history?marketIds=${fifty}&startTime=2026-11-01T00:00:00Z`)).status).toBe(200);
  });
});

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

describe('client key', () => {
  it('answers 401 without the configured X-Service-Client-Key', async () => {
    const keyed = await startSimulator({ seed: 42, clientKey: 'sck_test_key' });
    try {
      const no = await fetch(`${keyed.urls.markets}/v0/markets?limit=1`);
      expect(no.status).toBe(401);
      const wrong = await fetch(`${keyed.urls.markets}/v0/positions/owners?walletAddresses=x`, { headers: { 'X-Service-Client-Key': 'nope' } });
      expect(wrong.status).toBe(401);
      const yes = await fetch(`${keyed.urls.markets}/v0/markets?limit=1`, { headers: { 'X-Service-Client-Key': 'sck_test_key' } });
      expect(yes.status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});
