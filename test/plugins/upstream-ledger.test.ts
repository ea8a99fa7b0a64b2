import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { marketTokens } from '../../src/models/index.js';
import { startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';

const SOL = 'solana:So11111111111111111111111111111111111111112';
/** Not on Solana: no market listing carries a token record of it. */
const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const DEBUG = { 'x-gateway-debug': '1' };
const ASSET = `query($id: String!) { asset(id: $id) { assetId name metadataSource } }`;

interface Ledger {
  calls: { service: string; route: string; status: number | null; durationMs: number; attempts: number }[];
  cache: { hits: number; stale: number; fallback: number };
  budget: { used: number; limit: number };
}

const ledgerOf = (res: object) => (res as { extensions?: Record<string, unknown> }).extensions?.['upstream'] as Ledger | undefined;

/** A fake clock for the asset cache: TTLs pass when the test says so. */
function fakeClock() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('the upstream ledger (X-Gateway-Debug: 1)', () => {
  let gw: TestGateway;
  const clock = fakeClock();

  beforeAll(async () => {
    gw = await startTestGateway({ assetCache: { now: clock.now } });
  });
  afterAll(() => gw.close());
  afterEach(() => gw.sim.controls.reset());

  it("lists the operation's upstream calls by route template, the copies served and the budget spent", async () => {
    const wallet = gw.sim.world.demoWallets[0]!;
    const [one, two] = (await gw.services.marketIndex.listing({}, { after: null, first: 2 }))!.markets.map((m) => m.marketId);
    const res = await gw.execute(
      `query($address: String!, $id: String!, $one: String!, $two: String!) {
        viewer { walletAddress }
        wallet(address: $address) { totalValueUsd positions(first: 3) { edges { node { market { productName } } } } }
        asset(id: $id) { name }
        one: market(id: $one) { productName }
        two: market(id: $two) { productName }
      }`,
      { address: wallet, id: ETH, one, two },
      { ...gw.viewerHeaders, ...DEBUG },
    );
    expect(res.errors).toBeUndefined();
    const ledger = ledgerOf(res)!;

    // Exactly the calls the upstreams saw, one entry each, named by template.
    expect(ledger.calls).toHaveLength(totalCalls(gw));
    expect(ledger.calls.map((c) => `${c.service} ${c.route}`).sort()).toEqual([
      'alerts GET /v2/auth',
      'assets GET /v0/assets/{id}',
      'markets GET /v0/positions/owners',
    ]);
    for (const call of ledger.calls) {
      expect(call).toEqual({ service: call.service, route: call.route, status: 200, durationMs: expect.any(Number), attempts: 1 });
    }
    // The two markets came from the market index (one lookup of both ids): copies, no call.
    expect(ledger.cache).toEqual({ hits: 2, stale: 0, fallback: 0 });
    expect(ledger.budget).toEqual({ used: 3, limit: gw.config.upstreamCallBudget });
  });

  it('counts a cached copy as a hit, a copy past its TTL as stale, and a stand-in as a fallback', async () => {
    const first = await gw.execute(ASSET, { id: SOL }, DEBUG);
    expect(ledgerOf(first)).toMatchObject({ calls: [{ service: 'assets', route: 'GET /v0/assets/{id}', status: 200 }], cache: { hits: 0, stale: 0, fallback: 0 } });

    const cached = await gw.execute(ASSET, { id: SOL }, DEBUG);
    expect(ledgerOf(cached)).toEqual({ calls: [], cache: { hits: 1, stale: 0, fallback: 0 }, budget: { used: 0, limit: gw.config.upstreamCallBudget } });

    // Past the metadata TTL (6 h) but within stale-while-revalidate: served stale at once.
    clock.advance(6 * 60 * 60_000 + 1_000);
    const stale = await gw.execute(ASSET, { id: SOL }, DEBUG);
    expect(stale.data!['asset'].metadataSource).toBe('STALE');
    expect(ledgerOf(stale)!.cache).toEqual({ hits: 0, stale: 1, fallback: 0 });

    // The assets service fails and the cache has nothing: the token record of a market listing stands in.
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const listed = (await gw.services.marketIndex.listing({ types: ['LENDING'] }, { after: null, first: 50 }))!.markets;
    const id = listed.flatMap(marketTokens).find((t) => t.assetId !== SOL)!.assetId;
    const fallback = await gw.execute(ASSET, { id }, DEBUG);
    expect(fallback.data!['asset'].metadataSource).toBe('FALLBACK');
    expect(ledgerOf(fallback)).toEqual({
      calls: [{ service: 'assets', route: 'GET /v0/assets/{id}', status: 503, durationMs: expect.any(Number), attempts: 1 }],
      cache: { hits: 0, stale: 0, fallback: 1 },
      budget: { used: 1, limit: gw.config.upstreamCallBudget },
    });
  });

  it('never shows credentials, query values or upstream hosts', async () => {
    const wallet = gw.sim.world.demoWallets[1]!;
    const res = await gw.execute(
      `query($address: String!) { viewer { walletAddress } wallet(address: $address) { totalValueUsd } }`,
      { address: wallet },
      { ...gw.viewerHeaders, ...DEBUG },
    );
    const text = JSON.stringify(ledgerOf(res));
    expect(ledgerOf(res)!.calls.length).toBe(2);
    const { demo } = gw.sim.alerts;
    for (const secret of [demo.token, demo.clientKey, wallet, '127.0.0.1', 'http']) expect(text).not.toContain(secret);
  });

  it.each([
    ['without the header', {}],
    ['with X-Gateway-Debug: 0', { 'x-gateway-debug': '0' }],
  ])('is absent %s', async (_name, headers) => {
    const res = await gw.execute(ASSET, { id: SOL }, headers);
    expect(res.errors).toBeUndefined();
    expect(res).not.toHaveProperty('extensions');
  });

  it('is absent in production unless DEBUG_LEDGER=on', async () => {
    const off = await startTestGateway({ sim: gw.sim, config: { production: true, debugLedger: false } });
    const on = await startTestGateway({ sim: gw.sim, config: { production: true, debugLedger: true } });
    try {
      expect(await off.execute(ASSET, { id: SOL }, DEBUG)).not.toHaveProperty('extensions');
      expect(ledgerOf(await on.execute(ASSET, { id: SOL }, DEBUG))!.calls).toHaveLength(1);
    } finally {
      await Promise.all([off.close(), on.close()]);
    }
  });

  it('is never answered from the response cache: a debugging request runs the operation', async () => {
    const cached = await startTestGateway({ sim: gw.sim, config: { responseCache: true } });
    try {
      await cached.execute(ASSET, { id: ETH });
      const again = await cached.execute(ASSET, { id: ETH });
      expect(again).not.toHaveProperty('extensions');
      const debug = await cached.execute(ASSET, { id: ETH }, DEBUG);
      // Run, not served from the cache: the shared asset cache answered it, and the ledger says so.
      expect(ledgerOf(debug)).toMatchObject({ calls: [], cache: { hits: 1 } });
    } finally {
      await cached.close();
    }
  });

  it('comes with the last part of a deferred result, once every part has made its calls', async () => {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...DEBUG },
      body: JSON.stringify({ query: `{ asset(id: "${ETH}") { assetId ... @defer { priceHistory(from: "2025-11-01T00:00:00Z", resolution: ONE_DAY, first: 2) { totalCount } } } }` }),
    });
    const parts = (await response.text())
      .split('\n\n')
      .filter((event) => event.startsWith('event: next'))
      .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { extensions?: Record<string, unknown>; hasNext: boolean });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.slice(0, -1).every((p) => !p.extensions)).toBe(true);
    expect(ledgerOf(parts.at(-1)!)!.calls.map((c) => c.route).sort()).toEqual(['GET /v0/assets/{id}', 'GET /v0/assets/{id}/history']);
  });
});
