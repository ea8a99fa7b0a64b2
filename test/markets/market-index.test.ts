import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { createMarketIndex, INDEX_PAGE_SIZE } from '../../src/stores/market-index.js';
import { createLogger } from '../../src/logger.js';
import { useTestGateway } from '../helpers/gateway.js';
import { indexOver, listingCalls, type IndexUnderTest } from './helpers.js';

describe('the shared market index', () => {
  const gw = useTestGateway({ resetControls: true });
  let under: IndexUnderTest | null = null;
  let allIds: string[];
  let pages: number;

  beforeAll(() => {
    allIds = gw.sim.world.markets.map((m) => m.id);
    pages = Math.ceil(allIds.length / INDEX_PAGE_SIZE);
  });
  afterEach(() => {
    under?.index.stop();
    under = null;
  });

  it('is built once at start from every listing page (prediction markets of every status) and feeds the tokens on', async () => {
    under = indexOver(gw);
    await under.index.start();
    expect(listingCalls(gw)).toBe(pages);
    expect(under.index.info()).toMatchObject({ size: allIds.length, builds: 1, stale: false });
    expect(under.tokens).toBeGreaterThan(allIds.length);
    const gauge = await gw.services.registry.getSingleMetricAsString('gateway_market_index_markets');
    expect(gauge).toContain(`gateway_market_index_markets ${allIds.length}`);

    const found = await under.index.markets([allIds[0]!, allIds.at(-1)!, 'kamino.lend.unknown']);
    expect(found.map((m) => m?.marketId ?? null)).toEqual([allIds[0], allIds.at(-1), null]);
    const [provider] = await under.index.providers(['drift']);
    expect(provider).toMatchObject({ providerId: 'drift', name: 'Drift' });
    expect(listingCalls(gw)).toBe(pages);
  });

  it('builds on the first lookup when not built yet, once for concurrent lookups; unknown ids after that cost nothing', async () => {
    under = indexOver(gw);
    const lookups = await Promise.all([
      under.index.markets([allIds[1]!]),
      under.index.markets(['nope']),
      under.index.providers(['kamino']),
    ]);
    expect(lookups.map(([m]) => (m && 'marketId' in m ? m.marketId : (m?.providerId ?? null)))).toEqual([allIds[1], null, 'kamino']);
    expect(listingCalls(gw)).toBe(pages);
    await under.index.markets(['still-unknown', 'also-unknown']);
    expect(listingCalls(gw)).toBe(pages);
  });

  it('refreshes in the background before it goes stale, and keeps serving the old index while the markets service fails', async () => {
    let clock = Date.now();
    under = indexOver(gw, { refreshIntervalMs: 25, staleAfterMs: 60_000, now: () => clock });
    const warn = vi.spyOn(under.logger, 'warn');
    await under.index.start();
    const asOf = under.index.info().asOf!.getTime();

    clock += 1_000;
    await vi.waitFor(() => expect(under!.index.info().builds).toBeGreaterThanOrEqual(2), { timeout: 5_000, interval: 10 });
    expect(under.index.info().asOf!.getTime()).toBeGreaterThan(asOf);
    expect(under.index.info().stale).toBe(false);

    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/markets' }, { status: 503 });
    await vi.waitFor(() => expect(under!.index.info().refreshing).toBe(false), { timeout: 5_000, interval: 5 });
    const builds = under.index.info().builds;
    await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 5_000, interval: 10 });
    expect(String(warn.mock.calls[0]![1])).toMatch(/refresh failed; serving the previous index/);

    clock += 120_000; // well past staleAfterMs: stale, and still served
    const [market] = await under.index.markets([allIds[2]!]);
    expect(market?.marketId).toBe(allIds[2]);
    expect(under.index.info()).toMatchObject({ size: allIds.length, builds, stale: true });

    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/markets' }, null);
    await vi.waitFor(() => expect(under!.index.info().builds).toBeGreaterThan(builds), { timeout: 5_000, interval: 10 });
    expect(under.index.info().stale).toBe(false);
  });

  it('runs one refresh at a time: refreshes asked for during one join it', async () => {
    under = indexOver(gw);
    await under.index.start();
    gw.sim.controls.resetCounts();
    await Promise.all([under.index.refresh(), under.index.refresh(), under.index.refresh()]);
    expect(listingCalls(gw)).toBe(pages);
    expect(under.index.info().builds).toBe(2);
  });

  it('does not fail boot when the markets service is down; lookups then report the outage until it is back', async () => {
    gw.sim.controls.setFault({ service: 'markets' }, { status: 503 });
    under = indexOver(gw);
    const error = vi.spyOn(under.logger, 'error');
    await expect(under.index.start()).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledTimes(1);
    await expect(under.index.markets([allIds[0]!])).rejects.toMatchObject({ name: 'UpstreamError', service: 'markets' });

    gw.sim.controls.setFault({ service: 'markets' }, null);
    const [market] = await under.index.markets([allIds[0]!]);
    expect(market?.marketId).toBe(allIds[0]);
  });

  it('refuses a listing whose cursor loops as a broken markets service, after one read of the loop', async () => {
    let pagesRead = 0;
    const { upstream } = gw.services;
    const listMarkets = () => {
      pagesRead += 1;
      return Promise.resolve({ markets: [], cursor: 'again' });
    };
    const index = createMarketIndex({
      logger: createLogger({ logLevel: 'silent' }),
      registry: new Registry(),
      upstream: { ...upstream, markets: { ...upstream.markets, listMarkets } },
    });
    await expect(index.markets([allIds[0]!])).rejects.toMatchObject({
      name: 'UpstreamError',
      service: 'markets',
      kind: 'UNAVAILABLE',
      code: 'EBADBODY',
    });
    expect(pagesRead).toBe(2);
  });

  it('stops refreshing after stop()', async () => {
    under = indexOver(gw, { refreshIntervalMs: 10, staleAfterMs: 1_000 });
    await under.index.start();
    under.index.stop();
    gw.sim.controls.resetCounts();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listingCalls(gw)).toBe(0);
  });

  it('keeps the gateway serving market(id:) from its index while a refresh fails', async () => {
    const id = allIds[3]!;
    gw.sim.controls.setFault({ service: 'markets' }, { status: 503 });
    await expect(gw.services.marketIndex.refresh()).rejects.toMatchObject({ service: 'markets' });
    const res: any = await gw.execute(`query ($id: String!) { market(id: $id) { marketId provider { name } } }`, { id });
    expect(res.errors).toBeUndefined();
    expect(res.data.market.marketId).toBe(id);
  });
});
