import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { indexOver } from '../markets/helpers.js';

/**
 * Upstream shapes that must not become 500s: passthrough JSON past its bounds, a listing that never
 * ends, a listing refresh whose records are unreadable.
 */

const LISTING = { service: 'markets', route: 'GET /v0/markets' } as const;

const PAGE = /* GraphQL */ `
  query ($first: Int) {
    markets(first: $first) { edges { node { marketId productName additionalData freshness { source stale } } } }
  }
`;

interface Listing {
  markets: Record<string, unknown>[];
  cursor: string | null;
}

/** The first listed market's `additionalData` replaced by `raw` JSON text, sent as the raw body. */
function withRawAdditionalData(raw: string) {
  return (body: unknown) => {
    const listing = body as Listing;
    if (listing.markets.length === 0) return listing;
    listing.markets[0]!['additionalData'] = '__RAW__';
    return JSON.stringify(listing).replace('"__RAW__"', raw);
  };
}

const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('passthrough JSON past its bounds', () => {
  const gw = useTestGateway({ resetControls: true });

  it('a market whose additionalData nests 20,000 deep is a field error on that field; every other market and field is served, and the market index stays usable', async () => {
    const first = (await gw.execute(PAGE, { first: 3 })).data!['markets'].edges[0].node.marketId as string;
    gw.sim.controls.setFault(LISTING, { transform: withRawAdditionalData(deep(20_000)) });
    await gw.services.marketIndex.refresh();
    gw.sim.controls.setFault(LISTING, null);

    const res = await gw.execute(PAGE, { first: 50 });
    expect(res.status).toBe(200);
    const edges = res.data!['markets'].edges;
    expect(edges).toHaveLength(50);
    expect(edges[0].node).toMatchObject({ marketId: first, productName: expect.any(String), additionalData: null });
    expect(edges.slice(1).every((e: any) => e.node.productName)).toBe(true);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({
      path: ['markets', 'edges', 0, 'node', 'additionalData'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'markets', retryable: false, reason: 'PASSTHROUGH_BOUNDS' },
    });
    // The same market by id, and pages that do not ask for additionalData, are whole.
    const byId = await gw.execute(`query ($id: String!) { market(id: $id) { marketId productName } }`, { id: first });
    expect(byId.errors).toBeUndefined();
    expect(byId.data!['market']).toMatchObject({ marketId: first });
  });

  it('one 1 MB wide additionalData is refused alike; the healed upstream is served at the next read', async () => {
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'x'.repeat(40)])));
    gw.sim.controls.setFault(LISTING, { transform: withRawAdditionalData(wide) });
    await gw.services.marketIndex.refresh();
    gw.sim.controls.setFault(LISTING, null);
    const refused = await gw.execute(PAGE, { first: 2 });
    expect(refused.status).toBe(200);
    expect(refused.errors?.map((e) => e.path?.join('.'))).toEqual(['markets.edges.0.node.additionalData']);

    await gw.services.marketIndex.refresh();
    const healed = await gw.execute(PAGE, { first: 2 });
    expect(healed.errors).toBeUndefined();
  });
});

describe('a listing that never ends', () => {
  const gw = useTestGateway({ resetControls: true, marketIndex: { minClientRefreshAgeMs: 0 } });

  it("a client's forced re-read (no-cache) of a listing that hands out fresh cursors forever stops within its page bound and serves the held index, STALE", async () => {
    const held = gw.services.marketIndex.info().size;
    const page = (await (await fetch(`${gw.sim.urls.markets}/v0/markets?limit=200`)).json()) as Listing;
    let n = 0;
    gw.sim.controls.setFault(LISTING, { transform: () => ({ markets: page.markets, cursor: `fresh-${n++}` }) });
    gw.sim.controls.resetCounts();

    const res = await gw.execute(PAGE, { first: 3 }, { 'cache-control': 'no-cache' });
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data!['markets'].edges.map((e: any) => e.node.freshness)).toEqual(Array(3).fill({ source: 'STALE', stale: true }));
    // Twice the pages of the index held, and five more.
    expect(gw.sim.controls.count('markets', 'GET /v0/markets')).toBe(2 * Math.ceil(held / 200) + 5);
    expect(gw.services.marketIndex.info()).toMatchObject({ size: held, stale: true });

    // Healed: the next read is accepted and the index is fresh again.
    gw.sim.controls.setFault(LISTING, null);
    await gw.services.marketIndex.refresh();
    expect(gw.services.marketIndex.info()).toMatchObject({ size: held, stale: false });
  });
});

describe('a first build against a listing that never ends', () => {
  const gw = useTestGateway({ resetControls: true });

  it('stops at its page and byte bounds with fresh markets on every page, RSS bounded, and the index builds once the listing heals', async () => {
    const page = (await (await fetch(`${gw.sim.urls.markets}/v0/markets?limit=200`)).json()) as Listing;
    let n = 0;
    // Every page fresh markets (new ids) and a fresh cursor: nothing dedupes them.
    gw.sim.controls.setFault(LISTING, {
      transform: () => {
        n += 1;
        return { markets: page.markets.map((m) => ({ ...m, id: `${String(m['id'])}.${n}` })), cursor: `fresh-${n}` };
      },
    });
    gw.sim.controls.resetCounts();
    const under = indexOver(gw);
    try {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      await under.index.start();
      clearInterval(sampler);
      const growthMb = (Math.max(peak, process.memoryUsage().rss) - before) / 1e6;
      if (process.env['PRINT_RSS']) console.log(`cold never-ending listing: ${n} pages, peak RSS growth ${growthMb.toFixed(1)} MB`);
      expect(under.index.info()).toMatchObject({ size: 0, builds: 0, stale: true });
      // 250 pages, or fewer when 64 MiB were read first.
      expect(n).toBeLessThanOrEqual(250);
      expect(growthMb).toBeLessThan(300);

      gw.sim.controls.setFault(LISTING, null);
      await under.index.refresh();
      expect(under.index.info()).toMatchObject({ size: gw.sim.world.markets.length, builds: 1, stale: false });
    } finally {
      under.index.stop();
    }
  }, 60_000);
});

describe('a listing refresh that loses its valid records', () => {
  const gw = useTestGateway({ resetControls: true });

  const WALLET = /* GraphQL */ `
    query ($address: String!) { wallet(address: $address) { totalValueUsd } }
  `;

  it.each([
    ['every record null', (listing: Listing) => ({ ...listing, markets: listing.markets.map(() => null) })],
    [
      'numbers as strings',
      (listing: Listing) => ({
        ...listing,
        markets: listing.markets.map((m) =>
          Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])),
        ),
      }),
    ],
  ])('%s: the held index is kept, flagged stale, and the refusal logged', async (_name, spoil) => {
    await gw.services.marketIndex.refresh();
    const before = gw.services.marketIndex.info();
    const id = (await gw.execute(PAGE, { first: 1 })).data!['markets'].edges[0].node.marketId as string;
    const warned: unknown[] = [];
    const warn = gw.services.logger.warn.bind(gw.services.logger);
    gw.services.logger.warn = ((...args: unknown[]) => {
      warned.push(args);
      Reflect.apply(warn, undefined, args);
    });
    try {
      gw.sim.controls.setFault(LISTING, { transform: (body) => spoil(body as Listing) });
      await expect(gw.services.marketIndex.refresh()).rejects.toThrow(/lost most of its valid records/);
      expect(JSON.stringify(warned)).toMatch(/lost most of its valid records/);
    } finally {
      gw.services.logger.warn = warn;
    }
    expect(gw.services.marketIndex.info()).toMatchObject({ size: before.size, builds: before.builds, stale: true });

    const res = await gw.execute(`query ($id: String!) { market(id: $id) { marketId freshness { source stale } } }`, { id });
    expect(res.errors).toBeUndefined();
    expect(res.data!['market']).toEqual({ marketId: id, freshness: { source: 'STALE', stale: true } });

    gw.sim.controls.setFault(LISTING, null);
    await gw.services.marketIndex.refresh();
    expect(gw.services.marketIndex.info()).toMatchObject({ size: before.size, stale: false });
  });

  it('a positions answer whose records are numbers-as-strings is an error on the wallet, not a wallet worth $0', async () => {
    const [address] = [...gw.sim.world.positionsByOwner.entries()].find(([, p]) => p.length > 3)!;
    const stringly = (value: unknown): unknown =>
      typeof value === 'number' ? String(value) : Array.isArray(value) ? value.map(stringly) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringly(v)])) : value;
    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/positions/owners' }, { transform: stringly });
    const res = await gw.execute(WALLET, { address });
    expect(res.status).toBe(200);
    expect(res.data!['wallet']).toEqual({ totalValueUsd: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['wallet', 'totalValueUsd'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'markets' } });
  });
});
