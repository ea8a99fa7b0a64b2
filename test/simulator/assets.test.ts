import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Asset, AssetSummary } from '../../src/simulator/world/index.js';

let sim: Simulator;
const SOL = 'solana:So11111111111111111111111111111111111111112';

beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterAll(async () => {
  await sim?.close();
});

async function get<T = any>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sim.urls.assets}${path}`);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function expect400(path: string): Promise<void> {
  const r = await get(path);
  expect(r.status, path).toBe(400);
  expect(typeof r.body.error).toBe('string');
}

const SUMMARY_KEYS = ['address', 'chain', 'id', 'imageUrl', 'name', 'symbol', 'type'];

describe('GET /v0/search', () => {
  it('matches symbol, name or tag case-insensitively, best matches first', async () => {
    const r = await get<{ results: AssetSummary[]; cursor: string | null }>('/v0/search?q=SoL');
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(20);
    expect(r.body.results[0]!.id).toBe(SOL);
    expect(Object.keys(r.body.results[0]!).sort()).toEqual(SUMMARY_KEYS);

    const meme = await get<{ results: AssetSummary[] }>('/v0/search?q=meme&limit=100');
    expect(meme.body.results.length).toBeGreaterThan(3);
    for (const s of meme.body.results) {
      const a = sim.world.assetsById.get(s.id)!;
      const hit = a.symbol.toLowerCase().includes('meme') || a.name.toLowerCase().includes('meme') || a.tags.some((t) => t.includes('meme'));
      expect(hit, s.id).toBe(true);
    }
    const apple = await get<{ results: AssetSummary[] }>('/v0/search?q=aapl');
    expect(apple.body.results[0]).toMatchObject({ id: 'stock:AAPL', chain: 'stock', type: 'stock', address: null, symbol: 'AAPL' });
    const nothing = await get('/v0/search?q=zzzzzzzzqqq');
    expect(nothing.body).toEqual({ results: [], cursor: null });
  });

  it('filters by type (comma list)', async () => {
    const r = await get<{ results: AssetSummary[] }>('/v0/search?type=stock,rwa&limit=100');
    expect(r.body.results.length).toBeGreaterThan(10);
    expect(new Set(r.body.results.map((a) => a.type))).toEqual(new Set(['stock', 'rwa']));
  });

  it('pages to the end without duplicates', async () => {
    const expected = sim.world.assets.filter((a) => /usd/i.test(a.name) || /usd/i.test(a.symbol) || a.tags.some((t) => t.includes('usd'))).length;
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { status: number; body: { results: AssetSummary[]; cursor: string | null } } = await get(
        `/v0/search?q=usd&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      ids.push(...r.body.results.map((a) => a.id));
      cursor = r.body.cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(cursor).toBeNull();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(expected);

    // The whole catalogue (no q).
    const all: string[] = [];
    cursor = null;
    do {
      const r: { body: { results: AssetSummary[]; cursor: string | null } } = await get(`/v0/search?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...r.body.results.map((a) => a.id));
      cursor = r.body.cursor;
    } while (cursor);
    expect(new Set(all).size).toBe(sim.world.assets.length);
  });

  it('validates limit and cursor', async () => {
    await expect400('/v0/search?q=sol&limit=0');
    await expect400('/v0/search?q=sol&limit=101');
    expect((await get('/v0/search?q=sol&limit=100')).status).toBe(200);
    const first = await get('/v0/search?q=sol&limit=5');
    await expect400(`/v0/search?q=eth&limit=5&cursor=${first.body.cursor}`);
    await expect400(`/v0/search?q=sol&type=stock&limit=5&cursor=${first.body.cursor}`);
    expect((await get(`/v0/search?q=sol&limit=9&cursor=${first.body.cursor}`)).status).toBe(200);
    await expect400('/v0/search?q=sol&cursor=%%%');
  });
});

describe('GET /v0/assets/:id', () => {
  it('answers an Asset with its current price', async () => {
    const r = await get<Asset>(`/v0/assets/${encodeURIComponent(SOL)}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: SOL,
      chain: 'solana',
      address: 'So11111111111111111111111111111111111111112',
      type: 'token',
      symbol: 'SOL',
      decimals: 9,
      tags: expect.arrayContaining(['layer-1']),
      imageUrl: expect.stringMatching(/^https:\/\/cdn\./),
      price: { usd: expect.any(Number), change24h: expect.any(Number), updatedAt: expect.any(String) },
      marketCapUsd: expect.any(Number),
    });
    expect(r.body.price!.usd).toBeCloseTo(sim.world.priceAt(SOL, Date.now())!, 0);
    expect(Date.parse(r.body.price!.updatedAt)).toBeGreaterThan(Date.now() - 5 * 60_000);

    for (const id of ['stock:AAPL', 'bitcoin:native', 'base:native', 'ethereum:0x2260fac5e5542a773aa44fbcfedf7c193bc2c599']) {
      const a = await get<Asset>(`/v0/assets/${encodeURIComponent(id)}`);
      expect(a.status, id).toBe(200);
      expect(a.body.id).toBe(id);
    }
    // Unencoded colon works too; EVM addresses are case-insensitive.
    expect((await get('/v0/assets/stock:TSLA')).body.symbol).toBe('TSLA');
    const mixed = await get<Asset>('/v0/assets/ethereum:0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599');
    expect(mixed.body.id).toBe('ethereum:0x2260fac5e5542a773aa44fbcfedf7c193bc2c599');
  });

  it('answers 404 for an unknown id and 400 for an id outside the pattern', async () => {
    const r = await get('/v0/assets/solana:UnknownMint1111111111111111111111');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'not found' });
    for (const bad of ['solana:..', 'SOL ANA:x', 'solana:', 'nochain', 'solana:a..b', ':abc', 'solana:.abc', 'solana:a/b', `solana:${'a'.repeat(129)}`]) {
      await expect400(`/v0/assets/${encodeURIComponent(bad)}`);
    }
    expect((await get(`/v0/assets/solana:${'a'.repeat(128)}`)).status).toBe(404);
  });
});

describe('GET /v0/assets/:id/history', () => {
  it('answers points at the resolution (default 1h), deterministic', async () => {
    const path = `/v0/assets/${encodeURIComponent(SOL)}/history?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`;
    const r = await get(path);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(SOL);
    expect(r.body.resolution).toBe('1h');
    expect(r.body.points).toHaveLength(25);
    expect(r.body.points[0]).toEqual({ timestamp: '2026-01-01T00:00:00.000Z', priceUsd: expect.any(Number) });
    expect((await get(path)).body).toEqual(r.body);

    const fine = await get(`/v0/assets/stock:AAPL/history?from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z&resolution=5m`);
    expect(fine.body.points).toHaveLength(13);
    const daily = await get(`/v0/assets/bitcoin:native/history?from=2026-01-01T00:00:00Z&to=2026-01-31T00:00:00Z&resolution=1d`);
    expect(daily.body.points).toHaveLength(31);

    // `to` defaults to now; the last point is the current price (within an hour's move).
    const recent = await get(`/v0/assets/${encodeURIComponent(SOL)}/history?from=${new Date(Date.now() - 6 * 3_600_000).toISOString()}`);
    const last = recent.body.points.at(-1).priceUsd as number;
    expect(Math.abs(last / sim.world.priceAt(SOL, Date.now())! - 1)).toBeLessThan(0.1);
  });

  it('validates from, resolution and the 2000-point limit; 404 for unknown ids', async () => {
    await expect400(`/v0/assets/${encodeURIComponent(SOL)}/history`);
    await expect400(`/v0/assets/${encodeURIComponent(SOL)}/history?from=2026-01-01T00:00:00Z&resolution=1m`);
    await expect400(`/v0/assets/${encodeURIComponent(SOL)}/history?from=not-a-date`);
    // 5m over 7 days = 2017 points.
    await expect400(`/v0/assets/${encodeURIComponent(SOL)}/history?from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z&resolution=5m`);
    await expect400(`/v0/assets/solana:../history?from=2026-01-01T00:00:00Z`);
    const r = await get('/v0/assets/solana:UnknownMint1111111111111111111111/history?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z');
    expect(r.status).toBe(404);
  });
});

describe('client key', () => {
  it('answers 401 without the configured X-Service-Client-Key', async () => {
    const keyed = await startSimulator({ seed: 42, clientKey: 'sck_assets' });
    try {
      expect((await fetch(`${keyed.urls.assets}/v0/search?q=sol`)).status).toBe(401);
      expect((await fetch(`${keyed.urls.assets}/v0/assets/stock:AAPL`)).status).toBe(401);
      const ok = await fetch(`${keyed.urls.assets}/v0/assets/stock:AAPL`, { headers: { 'x-service-client-key': 'sck_assets' } });
      expect(ok.status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});
