import { describe, expect, test } from 'vitest';
import { AssetsSource } from '../../src/sources/assets.js';
import { SOL, calls, gateway, fakeClock, tokenRecord, closeAfterEachTest } from '../helpers/asset-cache.js';

closeAfterEachTest();

describe('held assets answer at once', () => {
  test('a held token and its price come back without a promise, once per request, with no call; an unheld one waits on one call', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const cold = new AssetsSource(gw.services);
    const pending = cold.token(tokenRecord(gw, SOL));
    expect(pending).toBeInstanceOf(Promise);
    const fetched = (await pending)!;
    expect(fetched).toMatchObject({ assetId: SOL, freshness: { source: 'ORIGIN' } });
    expect(calls(gw)).toBe(1);

    const warm = new AssetsSource(gw.services);
    const held = warm.token(tokenRecord(gw, SOL));
    expect(held).not.toBeInstanceOf(Promise);
    expect(held).toMatchObject({ assetId: SOL, freshness: { source: 'CACHE' } });
    // One answer per id and request, the same object, and its price at once within the price TTL.
    expect(warm.token(tokenRecord(gw, SOL))).toBe(held);
    const priced = warm.price(held as NonNullable<typeof fetched>);
    expect(priced).not.toBeInstanceOf(Promise);
    expect((priced as typeof fetched).price!.usd).toBeGreaterThan(0);
    expect(calls(gw)).toBe(1);

    // Past the price TTL the price waits on one call.
    clock.advance(1_001);
    const later = new AssetsSource(gw.services);
    const repriced = later.price(later.token(tokenRecord(gw, SOL)) as NonNullable<typeof fetched>);
    expect(repriced).toBeInstanceOf(Promise);
    await repriced;
    expect(calls(gw)).toBe(2);
  });
});
