import { describe, expect, it, vi } from 'vitest';
import { startTestGateway, useTestGateway } from '../helpers/gateway.js';
import { rawPositions, richWallet, worldPositions } from './helpers.js';
import { positionCalls } from '../helpers/wallet-positions.js';

describe('wallets(addresses:) and the positions batch size', () => {
  const W = 5;
  const QUERY = `query($addresses: [String!]!) {
    wallets(addresses: $addresses) { address totalValueUsd positions { totalCount } }
  }`;

  async function run(positionsBatchSize: number | undefined, pick: (all: string[]) => string[]) {
    const gw = await startTestGateway(positionsBatchSize ? { config: { positionsBatchSize } } : {});
    try {
      const all = gw.sim.world.wallets.map((w) => w.address).filter((a) => worldPositions(gw, a).length > 0);
      const addresses = pick(all);
      const getPositions = vi.spyOn(gw.services.upstream.markets, 'getPositions');
      const res: any = await gw.execute(QUERY, { addresses });
      const walletsPerCall = getPositions.mock.calls.map(([params]) => [...params.walletAddresses]);
      return { gw, res, calls: positionCalls(gw), walletsPerCall, addresses };
    } finally {
      await gw.close();
    }
  }

  it(`makes one call per wallet at the default batch size of 1 (${W} wallets → ${W} calls)`, async () => {
    const { gw, res, calls, walletsPerCall, addresses } = await run(undefined, (all) => all.slice(0, W));
    expect(res.errors).toBeUndefined();
    expect(calls).toBe(W);
    expect(walletsPerCall.every((list) => list.length === 1)).toBe(true);
    expect(res.data.wallets.map((w: any) => w.address)).toEqual(addresses);
    for (const wallet of res.data.wallets) expect(wallet.positions.totalCount).toBe(worldPositions(gw, wallet.address).length);
  });

  it(`makes one call for all ${W} wallets when the batch size allows, and splits the answer by owner`, async () => {
    const { gw, res, calls, walletsPerCall, addresses } = await run(25, (all) => all.slice(0, W));
    expect(res.errors).toBeUndefined();
    expect(calls).toBe(1);
    expect(walletsPerCall[0]!.sort()).toEqual([...addresses].sort());
    for (const wallet of res.data.wallets) expect(wallet.positions.totalCount).toBe(worldPositions(gw, wallet.address).length);
  });

  it('batches by the configured size (5 wallets at 2 per call → 3 calls)', async () => {
    const { calls, walletsPerCall } = await run(2, (all) => all.slice(0, 5));
    expect(calls).toBe(3);
    expect(walletsPerCall.map((list) => list.length).sort()).toEqual([1, 2, 2]);
  });

  it('removes duplicate addresses before calling', async () => {
    const { res, calls, addresses } = await run(undefined, (all) => [all[0]!, all[1]!, all[0]!]);
    expect(res.data.wallets.map((w: any) => w.address)).toEqual([addresses[0], addresses[1]]);
    expect(calls).toBe(2);
  });
});

describe('asset calls of a positions page', () => {
  const gw = useTestGateway();

  it('costs one asset call per distinct market token, and none when repeated', async () => {
    const address = richWallet(gw);
    const query = `query($address: String!) {
      wallet(address: $address) {
        positions(first: 100) {
          edges { node { market {
            ... on LendingMarket { token { symbol } }
            ... on YieldMarket { token { symbol } }
          } } }
        }
      }
    }`;
    const raw = await rawPositions(gw, address);
    // A market the position does not embed is the listed one (the gateway finds it in its index).
    const markets = raw.map((p) => p.market ?? gw.sim.world.marketsById.get(p.marketId));
    const withToken = markets.filter((m) => m?.type === 'lending' || m?.type === 'yield');
    const tokens = new Set(withToken.map((m) => m.token.address));
    // N positions over K distinct tokens, N > K: a per-position asset call would show.
    expect(tokens.size).toBeGreaterThan(1);
    expect(withToken.length).toBeGreaterThan(tokens.size);

    const first: any = await gw.execute(query, { address });
    expect(first.errors).toBeUndefined();
    // One lookup per distinct token, however many positions share it.
    expect(gw.sim.controls.count('assets')).toBe(tokens.size);

    gw.sim.controls.resetCounts();
    const again: any = await gw.execute(query, { address });
    expect(again.data).toEqual(first.data);
    expect(gw.sim.controls.count('assets')).toBe(0);
  });
});
