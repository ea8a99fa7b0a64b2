import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { openStream } from '../events/helpers.js';
import { PRICES, readsOf, startLiveGateway, subscribePrices, untilNoSubscribers, VOLATILE } from './helpers.js';

describe('Subscription.prices on one replica', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startLiveGateway({}, { maxAssets: 3, maxProcessAssets: 4 });
  });
  afterAll(() => gw?.close());

  it('sends every asset asked first, then only what changed, and stops polling once the last subscriber leaves', async () => {
    const { stream, first } = await subscribePrices(gw, VOLATILE);
    expect(first.errors).toBeUndefined();
    expect(first.data.prices.map((t: any) => t.assetId)).toEqual(VOLATILE);
    for (const tick of first.data.prices) expect(tick).toMatchObject({ usd: expect.any(Number), stale: false });
    const seen = new Map<string, number>(first.data.prices.map((t: any) => [t.assetId, t.usd]));
    for (let i = 0; i < 3; i++) {
      const next = await stream.next();
      expect(next?.data.prices.length).toBeGreaterThan(0);
      for (const tick of next!.data.prices) {
        expect(tick.usd).not.toBe(seen.get(tick.assetId));
        seen.set(tick.assetId, tick.usd);
      }
    }
    await stream.close();
    await untilNoSubscribers(gw);
    expect(gw.services.livePrices.assets).toBe(0);
    const metrics = await gw.services.registry.metrics();
    for (const name of ['gateway_live_price_polls_total{result="upstream"}', 'gateway_live_price_ticks_total', 'gateway_live_price_round_polls']) {
      expect(Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(metrics)?.[1])).toBeGreaterThan(0);
    }
    expect(metrics).toMatch(/^gateway_live_price_assets 0$/m);
    expect(metrics).toMatch(/^gateway_live_price_subscribers 0$/m);
    // Past the round that found nobody watching, no asset is read again.
    gw.sim.controls.resetCounts();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(VOLATILE.map((id) => readsOf(gw, id))).toEqual([0, 0, 0]);
  });

  it('refuses malformed and unknown ids, too many ids, and assets past the process bound, before the stream starts', async () => {
    const refused = async (ids: string[]) => {
      const stream = await openStream(gw, PRICES, { ids });
      const message = await stream.next();
      await stream.close();
      return message?.errors?.[0];
    };
    expect(await refused(['not an id'])).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(await refused(['solana:UnknownMint11111111111111111111111111'])).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(await refused(['stock:AAPL', 'stock:TSLA', 'stock:NVDA', 'stock:MSFT'])).toMatchObject({
      message: 'assetIds holds 4 distinct ids; at most 3 per subscription.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const held = await subscribePrices(gw, VOLATILE);
    expect(await refused(['stock:AAPL', 'stock:TSLA'])).toMatchObject({ extensions: { code: 'RATE_LIMITED', reason: 'TOO_MANY_LIVE_ASSETS' } });
    expect(gw.services.livePrices.assets).toBe(3);
    await held.stream.close();
    await untilNoSubscribers(gw);
    expect(gw.services.livePrices.assets).toBe(0);
  });

  it('keeps the stream through an upstream outage: the next event flags every price stale, and fresh prices follow its recovery', { timeout: 60_000 }, async () => {
    const { stream, first } = await subscribePrices(gw, VOLATILE);
    expect(first.data.prices.every((t: any) => !t.stale)).toBe(true);
    gw.sim.controls.setFault({ service: 'assets', route: 'GET /v0/assets/:id' }, { status: 503 });
    let next = await stream.next();
    // A tick read before the fault may come first; then the stale one, with the last known prices.
    while (next?.data.prices.some((t: any) => !t.stale)) next = await stream.next();
    expect(next?.data.prices.map((t: any) => [t.assetId, t.stale, t.source])).toEqual(VOLATILE.map((id) => [id, true, 'STALE']));
    gw.sim.controls.setFault({ service: 'assets', route: 'GET /v0/assets/:id' }, null);
    next = await stream.next();
    expect(next?.errors).toBeUndefined();
    expect(next?.data.prices.every((t: any) => !t.stale && t.source === 'ORIGIN')).toBe(true);
    await stream.close();
    await untilNoSubscribers(gw);
  });
});
