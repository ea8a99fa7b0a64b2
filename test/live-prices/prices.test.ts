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
});
