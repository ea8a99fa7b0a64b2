import { afterEach, describe, expect, test } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { richWallet } from './helpers.js';

const POSITIONS = 'GET /v0/positions/owners';
const WALLET = `query ($address: String!) {
  wallet(address: $address) {
    totalValueUsd
    positions(first: 5) { totalCount edges { node { positionId market { marketId freshness { source asOf } } } } }
  }
}`;

const open: TestGateway[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** A gateway sharing positions for 2 s on a clock the test moves. */
async function gateway(ttlMs = 2000) {
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const gw = await startTestGateway({ config: { positionsShareTtlMs: ttlMs }, positions: { now: clock.now } });
  open.push(gw);
  return { gw, clock, address: richWallet(gw), calls: () => gw.sim.controls.count('markets', POSITIONS) };
}

describe('positions shared across requests and callers (POSITIONS_SHARE_TTL_MS)', () => {
  test('two users viewing the same wallet within the TTL make one positions call, with the same answer', async () => {
    const { gw, clock, address, calls } = await gateway();
    const anonymous: any = await gw.execute(WALLET, { address });
    clock.advance(1500);
    const signedIn: any = await gw.execute(WALLET, { address }, gw.viewerHeaders);
    expect(anonymous.errors).toBeUndefined();
    expect(signedIn.errors).toBeUndefined();
    expect(calls()).toBe(1);
    const withoutFreshness = (res: any) => JSON.stringify(res.data, (key, value) => (key === 'freshness' ? undefined : value));
    expect(withoutFreshness(signedIn)).toBe(withoutFreshness(anonymous));
    // The shared copy's markets say when the one read answered: ORIGIN for the request that read it, CACHE for the next.
    const freshness = (res: any) => res.data.wallet.positions.edges.find((e: any) => e.node.market)?.node.market.freshness;
    const asOf = new Date(clock.now() - 1500).toISOString();
    expect(freshness(anonymous)).toEqual({ source: 'ORIGIN', asOf });
    expect(freshness(signedIn)).toEqual({ source: 'CACHE', asOf });
  });

  test('past the TTL the wallet is read again, once', async () => {
    const { gw, clock, address, calls } = await gateway();
    await gw.execute(WALLET, { address });
    clock.advance(2001);
    await gw.execute(WALLET, { address });
    await gw.execute(WALLET, { address });
    expect(calls()).toBe(2);
  });

  test('50 concurrent requests for one wallet share one read in flight', async () => {
    const { gw, address, calls } = await gateway();
    const answers: any[] = await Promise.all(Array.from({ length: 50 }, () => gw.execute(WALLET, { address })));
    expect(answers.every((a) => a.errors === undefined && a.data.wallet.positions.totalCount > 0)).toBe(true);
    expect(calls()).toBe(1);
  });

  test("a client's Cache-Control max-age bounds the shared copy's age; no-cache reads anew", async () => {
    const { gw, clock, address, calls } = await gateway();
    await gw.execute(WALLET, { address });
    clock.advance(1000);
    await gw.execute(WALLET, { address }, { 'cache-control': 'max-age=1' });
    expect(calls()).toBe(1);
    clock.advance(1);
    const bounded: any = await gw.execute(WALLET, { address }, { 'cache-control': 'max-age=1' });
    expect(calls()).toBe(2);
    const market = bounded.data.wallet.positions.edges.find((e: any) => e.node.market)?.node.market;
    expect(market.freshness.asOf).toBe(new Date(clock.now()).toISOString());
    clock.advance(1);
    await gw.execute(WALLET, { address }, { 'cache-control': 'no-cache' });
    expect(calls()).toBe(3);
    // The fresh copy the no-cache read stored serves the next caller without a bound.
    await gw.execute(WALLET, { address });
    expect(calls()).toBe(3);
  });

  test('TTL 0: every request reads its own positions', async () => {
    const { gw, address, calls } = await gateway(0);
    await gw.execute(WALLET, { address });
    await gw.execute(WALLET, { address });
    expect(calls()).toBe(2);
  });
});

describe('positions held in memory', () => {
  const held = async (gw: TestGateway) => {
    const text = await gw.services.registry.getSingleMetricAsString('gateway_positions_wallets');
    return Number(/^gateway_positions_wallets (\d+)$/m.exec(text)?.[1]);
  };

  test('a wallet past the TTL is dropped, not held until 10,000 others push it out', async () => {
    const { gw, clock } = await gateway();
    const [a, b, c] = gw.sim.world.demoWallets;
    await gw.execute(WALLET, { address: a });
    await gw.execute(WALLET, { address: b });
    expect(await held(gw)).toBe(2);
    clock.advance(2001);
    await gw.execute(WALLET, { address: c });
    expect(await held(gw)).toBe(1);
  });
});
