import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { useTestGateway } from '../helpers/gateway.js';

/** Records the upstream sends twice are one record: listed, counted and summed once. */

const twice = <T>(items: T[]): T[] => items.flatMap((item) => [item, item]);

describe('duplicated upstream records', () => {
  const gw = useTestGateway({ resetControls: true });

  it('duplicated positions are listed and summed once: totalValueUsd is not doubled', async () => {
    const WALLET = /* GraphQL */ `
      query ($address: String!) { wallet(address: $address) { totalValueUsd positions(first: 100) { totalCount edges { node { positionId } } } } }
    `;
    const [address, positions] = [...gw.sim.world.positionsByOwner.entries()].find(([, p]) => p.length > 3)!;
    const honest = await gw.execute(WALLET, { address });
    expect(honest.errors).toBeUndefined();
    gw.sim.controls.resetCounts();

    gw.sim.controls.setFault(
      { service: 'markets', route: 'GET /v0/positions/owners' },
      { transform: (body) => ({ positions: twice((body as { positions: unknown[] }).positions) }) },
    );
    const res = await gw.execute(WALLET, { address });
    expect(res.errors).toBeUndefined();
    expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(1);
    const wallet = res.data!['wallet'];
    // Prices move between the two reads: the same sum within a cent in a thousand, not twice it.
    expect(wallet.totalValueUsd / honest.data!['wallet'].totalValueUsd).toBeCloseTo(1, 3);
    expect(wallet.positions.totalCount).toBe(positions.length);
    const ids = wallet.positions.edges.map((e: any) => e.node.positionId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a channel listed twice (under a second key) is one channel', async () => {
    const CHANNELS = `{ viewer { channels { id key } } }`;
    const honest = (await gw.execute(CHANNELS, {}, gw.viewerHeaders)).data!['viewer'].channels as { id: string; key: string }[];
    expect(honest.length).toBeGreaterThan(0);
    gw.sim.controls.setFault(
      { service: 'alerts', route: 'GET /v2/channels' },
      {
        transform: (body) => {
          const listing = body as Record<string, unknown>;
          return { ...listing, ...Object.fromEntries(Object.entries(listing).map(([key, channel]) => [`${key}_AGAIN`, channel])) };
        },
      },
    );
    const res = await gw.execute(CHANNELS, {}, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].channels).toEqual(honest);
  });

  it('inbox items sent twice are one item each', async () => {
    const INBOX = `{ viewer { inbox(first: 10) { edges { node { notificationId } } } } }`;
    const honest = (await gw.execute(INBOX, {}, gw.viewerHeaders)).data!['viewer'].inbox.edges;
    gw.sim.controls.setFault(
      { service: 'alerts', route: 'GET /v2/history' },
      { transform: (body) => ({ ...(body as object), alerts: twice((body as { alerts: unknown[] }).alerts) }) },
    );
    const res = await gw.execute(INBOX, {}, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].inbox.edges).toEqual(honest);
  });

  it('search results sent twice are one result each', async () => {
    const SEARCH = `{ searchAssets(query: "sol", first: 10) { edges { node { assetId } } } }`;
    const honest = (await gw.execute(SEARCH)).data!['searchAssets'].edges;
    gw.sim.controls.setFault(
      { service: 'assets', route: 'GET /v0/search' },
      { transform: (body) => ({ ...(body as object), results: twice((body as { results: unknown[] }).results) }) },
    );
    const res = await gw.execute(SEARCH);
    expect(res.errors).toBeUndefined();
    const ids = res.data!['searchAssets'].edges.map((e: any) => e.node.assetId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(honest.map((e: any) => e.node.assetId).slice(0, ids.length));
  });

  it('markets listed twice on a page are one market each', async () => {
    const page = await gw.services.upstream.markets.listMarkets({ limit: 5 });
    gw.sim.controls.setFault(
      { service: 'markets', route: 'GET /v0/markets' },
      { transform: (body) => ({ ...(body as object), markets: twice((body as { markets: unknown[] }).markets) }) },
    );
    const doubled = await gw.services.upstream.markets.listMarkets({ limit: 5 });
    expect(doubled.markets.map((m) => m.marketId)).toEqual(page.markets.map((m) => m.marketId));
  });
});

describe('an invalid JSON request in production', () => {
  const production = loadConfig({ NODE_ENV: 'production', ALERTS_URL: 'http://a:1', MARKETS_URL: 'http://m:1', ASSETS_URL: 'http://s:1' });
  const gw = useTestGateway({ config: { ...production, responseCache: false } });

  it.each([['{"query": "{ secret-token-abc'], ['secret-token-abc'], ['{"query":"{ a }", "variables": secret-token-abc}']])(
    'is answered 400 without its body echoed: %s',
    async (body) => {
      const response = await gw.app.yoga.fetch('http://gateway.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(JSON.parse(text)).toMatchObject({ errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
      expect(text).not.toContain('secret-token');
      expect(text).not.toContain('query');
    },
  );
});
