import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { openStream } from '../events/helpers.js';
import { startLiveGateway, untilNoSubscribers } from './helpers.js';

const WALLET_VALUE = `subscription W($address: String!) {
  walletValue(address: $address) { address totalValueUsd asOf stale positions { valueUsd live position { __typename amount amountUsd } } }
}`;

describe('Subscription.walletValue', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startLiveGateway();
  });
  afterAll(() => gw?.close());

  it("sends the wallet's value, then a new one on each price change, with no positions call", { timeout: 60_000 }, async () => {
    const address = gw.sim.world.demoWallets[0]!;
    const stream = await openStream(gw, WALLET_VALUE, { address });
    const first = await stream.next();
    expect(first?.errors).toBeUndefined();
    const value = first!.data.walletValue;
    expect(value).toMatchObject({ address, stale: false });
    expect(value.positions.length).toBeGreaterThan(0);
    expect(value.positions.some((p: any) => p.live)).toBe(true);
    expect(gw.sim.controls.count('markets')).toBe(1);

    gw.sim.controls.resetCounts();
    const totals = [value.totalValueUsd];
    for (let i = 0; i < 3; i++) totals.push((await stream.next())!.data.walletValue.totalValueUsd);
    // Three ticks, each a new value, from price reads alone.
    expect(new Set(totals).size).toBe(4);
    expect(gw.sim.controls.count('markets')).toBe(0);
    expect(gw.sim.controls.count('assets')).toBeGreaterThan(0);
    await stream.close();
    await untilNoSubscribers(gw);
  });

  it('refuses an address that is not a Solana address before the stream starts', async () => {
    const stream = await openStream(gw, WALLET_VALUE, { address: 'not-an-address' });
    expect((await stream.next())?.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    await stream.close();
    expect(gw.sim.controls.count('markets')).toBe(0);
  });
});
