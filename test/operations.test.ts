import { describe, expect, it, vi } from 'vitest';
import { startSimulator } from '../src/simulator/index.js';
import { operation, startTestGateway, useTestGateway } from './helpers/gateway.js';

/** Every operation real frontends send runs unchanged, without errors. Domain tests check the data in depth. */
describe('the operations frontends send', () => {
  const gw = useTestGateway();

  const wallet = () => gw.sim.world.demoWallets[0]!;
  const weekAgo = () => new Date(Date.now() - 7 * 86_400_000).toISOString();
  const apiHeaders = () => ({ ...gw.viewerHeaders, 'x-service-api-key': gw.sim.alerts.demo.apiKey });

  const cases: [string, () => Record<string, unknown>, (() => Record<string, string>) | null, string?][] = [
    ['AssetDetail', () => ({ id: 'bitcoin:native', from: weekAgo(), first: 5 }), null],
    ['MarketsPage', () => ({ first: 25, filter: { types: ['LENDING', 'LOOP', 'PERPETUAL', 'PREDICTION'] } }), null],
    ['MobileHome', () => ({}), () => gw.viewerHeaders],
    ['SearchAssets', () => ({ query: 'sol', first: 5 }), null],
    ['ViewerInbox', () => ({ first: 5 }), () => gw.viewerHeaders],
    ['WalletHistory', () => ({ address: wallet(), from: weekAgo(), resolution: 'ONE_DAY' }), null],
    ['WalletPositions', () => ({ address: wallet(), first: 50 }), null],
    ['SendNotification', () => ({ appId: gw.sim.alerts.demo.appId, wallets: gw.sim.world.demoWallets, key: 'ops-test-1' }), apiHeaders],
    ['ChannelSetup', () => ({ email: 'someone@example.com' }), () => gw.viewerHeaders, 'PrepareEmail'],
    ['ChannelSetup', () => ({ code: '000000' }), () => gw.viewerHeaders, 'VerifyEmail'],
    ['ChannelSetup', () => ({}), () => gw.viewerHeaders, 'MarkAllRead'],
  ];

  it.each(cases)('%s runs unchanged', async (name, variables, headers, operationName) => {
    const result = await gw.execute(operation(name), variables(), headers?.() ?? {}, operationName);
    expect(result.errors).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.data).toBeTruthy();
  });
});

describe('MobileHome', () => {
  const gw = useTestGateway();

  /** The distinct tokens of the top lending markets, from the raw listing (the screen does not select their ids). */
  async function topLendingTokens(): Promise<string[]> {
    const lending = (await (await fetch(`${gw.sim.urls.markets}/v0/markets?type=lending&limit=5`)).json()) as {
      markets: { token: { address: string } }[];
    };
    return lending.markets.map((m) => `solana:${m.token.address}`);
  }

  it('answers one combined payload with one call per upstream resource and one per distinct token', async () => {
    const lendingTokens = await topLendingTokens();
    gw.sim.controls.resetCounts();
    const result = await gw.execute(operation('MobileHome'), {}, gw.viewerHeaders);
    expect(result.errors).toBeUndefined();
    const { viewer, topLending } = result.data!;
    const tokens = new Set<string>(lendingTokens);
    for (const edge of viewer.wallet.positions.edges) if (edge.node.market?.token) tokens.add(edge.node.market.token.assetId);
    expect(viewer.walletAddress).toBe(gw.sim.alerts.demo.walletAddress);
    expect(viewer.wallet.address).toBe(viewer.walletAddress);
    expect(viewer.wallet.positions.edges.length).toBeGreaterThan(0);
    expect(topLending.edges).toHaveLength(5);

    const counts = gw.sim.controls.counts();
    expect(counts).toEqual({
      'alerts GET /v2/auth': 1,
      'alerts GET /v2/channels': 1,
      'alerts GET /v2/history/summary': 1,
      'markets GET /v0/positions/owners': 1,
      'assets GET /v0/assets/:id': tokens.size,
    });
    // The top lending markets come from the shared market index: no markets listing call.

    gw.sim.controls.resetCounts();
    const again = await gw.execute(operation('MobileHome'), {}, gw.viewerHeaders);
    expect(again.errors).toBeUndefined();
    expect(gw.sim.controls.count('assets')).toBe(0);
  });

  it('runs its independent branches in parallel: every call that needs no other answer is in flight at once', async () => {
    // Only auth answers: what the gateway asks for meanwhile is what it can ask without waiting for
    // another answer. One call after another, it would wait on the first call that hangs.
    const sim = await startSimulator({ seed: 42 });
    const cold = await startTestGateway({ sim });
    sim.controls.resetCounts();
    for (const target of [
      { service: 'markets' },
      { service: 'assets' },
      { service: 'alerts', route: 'GET /v2/channels' },
      { service: 'alerts', route: 'GET /v2/history/summary' },
    ] as const) {
      sim.controls.setFault(target, { hang: true });
    }
    const pending = cold.execute(operation('MobileHome'), {}, cold.viewerHeaders);
    try {
      // The lending markets come from the market index built at start, so their tokens' assets are asked
      // for at once; channels, inbox summary and the wallet's positions as soon as auth names the viewer.
      // The positions' token assets wait for the positions.
      const lendingTokens = new Set(sim.world.markets.filter((m) => m.type === 'lending').slice(0, 5).map((m: any) => m.token.address));
      await vi.waitFor(() =>
        expect(sim.controls.counts()).toEqual({
          'alerts GET /v2/auth': 1,
          'alerts GET /v2/channels': 1,
          'alerts GET /v2/history/summary': 1,
          'markets GET /v0/positions/owners': 1,
          'assets GET /v0/assets/:id': lendingTokens.size,
        }),
      );
    } finally {
      // Closing the simulator cuts the hanging calls; the operation then ends with errors.
      await sim.close();
      await pending;
      await cold.close();
    }
  });
});
