import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { JUP, lastTrade, openStream, postWebhook, priceChange, SOL, startEventsGateway, subscribeEvents, trending } from './helpers.js';

const FILTERED = `subscription Filtered($kinds: [EventKind!], $assetIds: [String!]) {
  events(kinds: $kinds, assetIds: $assetIds) { eventId kind assetId }
}`;

const FULL = `subscription Live {
  events {
    __typename eventId kind timestamp assetId symbol
    asset { id assetId symbol name decimals price { usd } }
    ... on TokenPriceChangeEvent { window threshold direction from { timestamp priceUsd } to { timestamp priceUsd } absolute percentage }
    ... on TrendingTokenEvent { metrics { launchpad marketCapUsd liquidityUsd holders priceUsd priceChange24h } }
    ... on TokenLastTradePriceChangeEvent { walletAddress wallet { address } lastTradePrice currentPrice percentage direction }
  }
}`;

describe('Subscription.events', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startEventsGateway();
  });
  afterAll(() => gw?.close());

  it('streams each kind as its own type, with the asset resolved through the assets data source', async () => {
    const wallet = gw.sim.world.demoWallets[0]!;
    const { stream, first } = await subscribeEvents(gw, FULL);
    gw.sim.controls.resetCounts();
    await postWebhook(gw, { events: [priceChange('full-1'), trending('full-2'), lastTrade('full-3', wallet)] });

    const price = (await first)?.data.events;
    expect(price).toMatchObject({
      __typename: 'TokenPriceChangeEvent',
      kind: 'TOKEN_PRICE_CHANGE',
      timestamp: '2026-01-05T12:00:00.000Z',
      assetId: `solana:${SOL}`,
      symbol: 'SOL',
      window: 'ONE_HOUR',
      threshold: 0.05,
      direction: 'UP',
      from: { timestamp: '2026-01-05T11:00:00.000Z', priceUsd: 180 },
      to: { priceUsd: 190 },
      absolute: 10,
      percentage: 0.0556,
    });
    expect(price.asset).toMatchObject({ assetId: `solana:${SOL}`, symbol: 'SOL', name: 'Solana', decimals: 9 });
    expect(price.asset.id).toEqual(expect.any(String));
    expect(price.asset.price.usd).toBeGreaterThan(0);

    const trendingEvent = (await stream.next())?.data.events;
    expect(trendingEvent).toMatchObject({
      __typename: 'TrendingTokenEvent',
      assetId: `solana:${JUP}`,
      asset: { symbol: 'JUP' },
      metrics: { launchpad: 'pump.fun', marketCapUsd: 1_200_000, liquidityUsd: 90_000, holders: 4200, priceUsd: 0.0012, priceChange24h: 0.4 },
    });

    const lastTradeEvent = (await stream.next())?.data.events;
    expect(lastTradeEvent).toMatchObject({
      __typename: 'TokenLastTradePriceChangeEvent',
      walletAddress: wallet,
      wallet: { address: wallet },
      lastTradePrice: 150,
      currentPrice: 180,
      percentage: 0.2,
      direction: 'UP',
      asset: { symbol: 'SOL' },
    });
    // Each asset is read once: SOL for the first event, JUP for the second; SOL again comes from the cache.
    expect(gw.sim.controls.count('assets', 'GET /v0/assets/:id')).toBe(2);
    await stream.close();
  });

  it("resolves each event with its own data sources: a later event reads the wallet again and shows its current positions", async () => {
    const wallet = gw.sim.world.demoWallets[1]!;
    const records = gw.sim.world.positionsByOwner.get(wallet)!;
    expect(records.length).toBeGreaterThan(0);
    const { stream, first } = await subscribeEvents(
      gw,
      `subscription { events(kinds: [TOKEN_LAST_TRADE_PRICE_CHANGE]) {
        eventId ... on TokenLastTradePriceChangeEvent { wallet { totalValueUsd positions(first: 1) { totalCount } } }
      } }`,
    );
    gw.sim.controls.resetCounts();
    try {
      await postWebhook(gw, { events: [lastTrade('fresh-1', wallet)] });
      const before = (await first)?.data.events;
      expect(before).toMatchObject({ eventId: 'fresh-1', wallet: { positions: { totalCount: records.length } } });
      expect(before.wallet.totalValueUsd).not.toBe(0);
      // Both wallet fields of one event share one call.
      expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(1);

      // The wallet closes every position before the next event about it.
      gw.sim.world.positionsByOwner.set(wallet, []);
      await postWebhook(gw, { events: [lastTrade('fresh-2', wallet)] });
      expect((await stream.next())?.data.events).toEqual({ eventId: 'fresh-2', wallet: { totalValueUsd: 0, positions: { totalCount: 0 } } });
      expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(2);
    } finally {
      gw.sim.world.positionsByOwner.set(wallet, records);
      await stream.close();
    }
  });

  it('gives a null asset, not an error, for a token the assets service does not know', async () => {
    const { stream, first } = await subscribeEvents(gw, 'subscription { events { eventId symbol asset { assetId } } }');
    const unknown = '1111111111111111111111111111111111111111111';
    await postWebhook(gw, { events: [priceChange('unknown-token', unknown, 'NOPE')] });
    expect(await first).toEqual({ data: { events: { eventId: 'unknown-token', symbol: 'NOPE', asset: null } } });
    await stream.close();
  });

  it('filters by kinds and by assetIds, each subscriber seeing only what it asked for', async () => {
    const all = await subscribeEvents(gw, FILTERED);
    const trendingOnly = await subscribeEvents(gw, FILTERED, { kinds: ['TRENDING_TOKEN'] });
    const jupOnly = await subscribeEvents(gw, FILTERED, { assetIds: [`solana:${JUP}`] });
    const solPriceOnly = await subscribeEvents(gw, FILTERED, { kinds: ['TOKEN_PRICE_CHANGE'], assetIds: [`solana:${SOL}`] });

    await postWebhook(gw, {
      events: [priceChange('f-sol-price'), priceChange('f-jup-price', JUP, 'JUP'), trending('f-jup-trending'), trending('f-sol-trending', SOL, 'SOL')],
    });
    await postWebhook(gw, { events: [priceChange('f-end-sol'), trending('f-end-jup')] });

    const ids = async (sub: typeof all, n: number) => {
      const seen = [(await sub.first)?.data.events.eventId];
      while (seen.length < n) seen.push((await sub.stream.next())?.data.events.eventId);
      return seen;
    };
    expect(await ids(all, 6)).toEqual(['f-sol-price', 'f-jup-price', 'f-jup-trending', 'f-sol-trending', 'f-end-sol', 'f-end-jup']);
    expect(await ids(trendingOnly, 3)).toEqual(['f-jup-trending', 'f-sol-trending', 'f-end-jup']);
    expect(await ids(jupOnly, 3)).toEqual(['f-jup-price', 'f-jup-trending', 'f-end-jup']);
    expect(await ids(solPriceOnly, 2)).toEqual(['f-sol-price', 'f-end-sol']);
    for (const sub of [all, trendingOnly, jupOnly, solPriceOnly]) await sub.stream.close();
  });

  it('stops listening when the client goes away', async () => {
    const before = gw.services.events.subscriptions;
    const { stream } = await subscribeEvents(gw, FILTERED);
    expect(gw.services.events.subscriptions).toBe(before + 1);
    await stream.close();
    await expect.poll(() => gw.services.events.subscriptions).toBe(before);
  });

  it('refuses invalid or too many asset ids and unknown kinds with BAD_USER_INPUT or a validation error', async () => {
    const before = gw.services.events.subscriptions;
    const badId = await openStream(gw, FILTERED, { assetIds: ['solana:../../admin'] });
    const answer = await badId.next();
    expect(answer?.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(answer?.errors?.[0].message).toMatch(/<chain>:<address>/);

    const tooMany = await openStream(gw, FILTERED, { assetIds: Array.from({ length: 101 }, (_, i) => `solana:token${i}`) });
    expect((await tooMany.next())?.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringMatching(/at most 100/) });

    const badKind = await gw.execute(FILTERED, { kinds: ['PRICE'] });
    expect(badKind.errors?.[0]?.message).toMatch(/EventKind/);
    expect(gw.services.events.subscriptions).toBe(before);
  });

  it('serves the same stream on GET /graphql/stream, whatever the Accept header', async () => {
    const before = gw.services.events.subscriptions;
    const stream = await openStream(gw, FILTERED, { kinds: ['TRENDING_TOKEN'] }, { path: '/graphql/stream', method: 'GET', accept: '*/*' });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/text\/event-stream/);
    const first = stream.next();
    await expect.poll(() => gw.services.events.subscriptions).toBe(before + 1);
    await postWebhook(gw, { events: [priceChange('stream-skip'), trending('stream-path')] });
    expect((await first)?.data.events.eventId).toBe('stream-path');
    await stream.close();

    const posted = await gw.app.yoga.fetch('http://gateway.test/graphql/stream', { method: 'POST', body: '{}' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
  });

  it('completes open streams when the gateway shuts down', async () => {
    const other = await startEventsGateway({ sim: gw.sim });
    const { stream, first } = await subscribeEvents(other, FILTERED);
    await other.close();
    expect(await first).toBeNull();
    await stream.close();
  });
});
