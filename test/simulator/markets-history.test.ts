import { describe, expect, it } from 'vitest';
import { sim, get, qs, expect400, useMarketsSimulator } from '../helpers/markets-simulator.js';

useMarketsSimulator();

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
