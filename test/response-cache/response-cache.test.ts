import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SubscriberRecord } from '../../src/simulator/alerts/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { strongTag } from '../../src/etag.js';
import { operation, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let sim: Simulator;
let gw: TestGateway;

beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterAll(() => sim.close());
// Each test starts with an empty cache and the simulator's initial data.
beforeEach(async () => {
  sim.alerts.reset();
  sim.controls.reset();
  gw = await startTestGateway({ sim, config: { responseCache: true } });
});
afterEach(() => gw.close());

const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
const VIEWER_CHANNELS = '{ viewer { id channels { key value verified } } }';
const VIEWER_UNREAD = '{ viewer { id unreadCount } }';

/** Upstream calls since the last reset, then reset: each step's calls are its own. */
function callsSinceLast(): Record<string, number> {
  const counts = gw.sim.controls.counts();
  gw.sim.controls.resetCounts();
  return counts;
}

function subscriberHeaders(subscriber: SubscriberRecord): Record<string, string> {
  return { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': gw.sim.alerts.demo.clientKey };
}

/** A subscriber other than the demo one, without an email channel. */
function otherSubscriber(): SubscriberRecord {
  const demo = gw.sim.alerts.demo.walletAddress;
  return [...gw.sim.alerts.subscribers.values()].find((s) => s.walletAddress !== demo && !s.channels.has('EMAIL'))!;
}

async function get(query: string, headers: Record<string, string> = {}): Promise<Response> {
  return gw.app.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(query)}`, {
    headers: { accept: 'application/graphql-response+json', ...headers },
  });
}

describe('public results', () => {
  it('are answered from the cache for every caller, whatever credentials they send', async () => {
    const first = await gw.execute(SEARCH);
    expect(first.errors).toBeUndefined();
    expect(first.data!['searchAssets'].edges).toHaveLength(5);
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });

    const other = subscriberHeaders(otherSubscriber());
    for (const headers of [{}, gw.viewerHeaders, other]) {
      const again = await gw.execute(SEARCH, {}, headers);
      expect(again).toEqual(first);
    }
    expect(callsSinceLast()).toEqual({});
  });

  it('answer a hit with the very bytes the miss that stored it was answered with', async () => {
    const query = '{ markets(first: 3) { edges { cursor node { marketId productName provider { name } } } } }';
    const miss = await get(query);
    const body = await miss.text();
    expect(JSON.parse(body).data.markets.edges).toHaveLength(3);
    callsSinceLast();
    for (let i = 0; i < 2; i++) {
      const hit = await get(query);
      expect(hit.headers.get('etag')).toBe(miss.headers.get('etag'));
      expect(await hit.text()).toBe(body);
    }
    expect(callsSinceLast()).toEqual({});
  });

  it('serve a warm markets page with no upstream call', async () => {
    const cold = await gw.execute(operation('MarketsPage'), { first: 20 });
    expect(cold.errors).toBeUndefined();
    callsSinceLast();
    const warm = await gw.execute(operation('MarketsPage'), { first: 20 });
    expect(warm).toEqual(cold);
    expect(callsSinceLast()).toEqual({});
    // Other variables are another result, not the cached one.
    const shorter = await gw.execute(operation('MarketsPage'), { first: 5 });
    expect(shorter.data!['markets'].edges).toHaveLength(5);
  });
});

describe("a request's Cache-Control", () => {
  it('max-age shorter than the cached result may be old is answered afresh; a longer one from the cache', async () => {
    await gw.execute(SEARCH);
    callsSinceLast();
    const bounded = await get(SEARCH, { 'cache-control': 'max-age=60' });
    expect(bounded.status).toBe(200);
    // Executed afresh, and the answer keeps its own cache policy (issue 33 item 5).
    expect(bounded.headers.get('cache-control')).toBe(`public, max-age=${gw.config.responseCacheTtlMs.metadata / 1000}`);
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });

    const loose = await get(SEARCH, { 'cache-control': 'max-age=3600' });
    expect(loose.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(callsSinceLast()).toEqual({});
  });

  it('a document selecting freshness is never cached: each answer tells its own freshness', async () => {
    const query = '{ asset(id: "solana:So11111111111111111111111111111111111111112") { symbol freshness { source } } }';
    const first = await get(query);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(((await first.json())).data.asset.freshness.source).toBe('ORIGIN');
    const again = await get(query);
    expect(((await again.json())).data.asset.freshness.source).toBe('CACHE');
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/assets/:id': 1 });
  });
});

describe('private results', () => {
  it('are cached for the caller who asked only', async () => {
    const mine = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(mine.errors).toBeUndefined();
    const coldCalls = callsSinceLast();
    expect(coldCalls).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/channels': 1 });

    expect(await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders)).toEqual(mine);
    expect(callsSinceLast()).toEqual({});

    // Another subscriber gets their own answer, from the upstream.
    const other = otherSubscriber();
    const theirs = await gw.execute(VIEWER_CHANNELS, {}, subscriberHeaders(other));
    expect(theirs.data!['viewer'].id).not.toBe(mine.data!['viewer'].id);
    expect(callsSinceLast()).toEqual(coldCalls);

    // The same token with another client key is another caller.
    await gw.execute(VIEWER_CHANNELS, {}, { ...gw.viewerHeaders, 'x-service-client-key': gw.sim.alerts.clientKeys[1]! });
    expect(callsSinceLast()['alerts GET /v2/auth']).toBe(1);

    // No credentials: no one's data, and the refusal is not cached.
    for (let i = 0; i < 2; i++) {
      const anonymous = await gw.execute(VIEWER_CHANNELS);
      expect(anonymous.data).toEqual({ viewer: null });
      expect(anonymous.errors![0]!.extensions!['code']).toBe('UNAUTHENTICATED');
    }
  });

  it('are fresh for the caller after their channel mutation, and stay cached for others', async () => {
    const subscriber = otherSubscriber();
    const headers = subscriberHeaders(subscriber);
    const before = await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(before.data!['viewer'].channels.map((c: { key: string }) => c.key)).not.toContain('EMAIL');
    const coldCalls = callsSinceLast();
    await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    callsSinceLast();
    await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(callsSinceLast()).toEqual({});

    const prepared = await gw.execute(
      'mutation { prepareEmailChannel(input: { email: "cached@example.com" }) { userErrors { code } } }',
      {},
      headers,
    );
    expect(prepared.data).toEqual({ prepareEmailChannel: { userErrors: [] } });
    expect(callsSinceLast()).toEqual({ 'alerts POST /v2/channel/email/prepare': 1 });

    const after = await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(after.data!['viewer'].channels).toContainEqual({ key: 'EMAIL', value: 'cached@example.com', verified: false });
    expect(callsSinceLast()).toEqual(coldCalls);

    // The demo subscriber's cached answer was not theirs to drop.
    await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(callsSinceLast()).toEqual({});
  });

  it('show the updated unread count after markNotificationsRead', async () => {
    const before = await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders);
    expect(before.data!['viewer'].unreadCount).toBeGreaterThan(0);
    const coldCalls = callsSinceLast();
    expect(coldCalls).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/history/summary': 1 });
    expect(await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders)).toEqual(before);
    expect(callsSinceLast()).toEqual({});

    const read = await gw.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, gw.viewerHeaders);
    expect(read.data).toEqual({ markNotificationsRead: { userErrors: [] } });
    expect(callsSinceLast()).toEqual({ 'alerts POST /v2/history/read': 1 });

    const after = await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders);
    expect(after.data!['viewer']).toEqual({ id: before.data!['viewer'].id, unreadCount: 0 });
    expect(callsSinceLast()).toEqual(coldCalls);
  });
});

describe('results with errors', () => {
  it('are not cached', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, { status: 503 });
    const failed = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(failed.errors![0]!.extensions!['code']).toBe('UPSTREAM_UNAVAILABLE');
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, null);
    callsSinceLast();

    const recovered = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(recovered.errors).toBeUndefined();
    expect(callsSinceLast()).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/channels': 1 });
  });
});

describe('HTTP caching of GET queries', () => {
  it('answers a public result with Cache-Control public and a strong ETag of its bytes, and its own If-None-Match with 304', async () => {
    const response = await get(SEARCH);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe(`public, max-age=${gw.config.responseCacheTtlMs.metadata / 1000}`);
    const etag = response.headers.get('etag');
    const text = await response.text();
    // Strong (no W/), quoted, derived from the answer's bytes: nothing of the cache key in it.
    expect(etag).toBe(strongTag(text));
    callsSinceLast();

    const revalidated = await get(SEARCH, { 'if-none-match': etag! });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(revalidated.headers.get('last-modified')).toBe(response.headers.get('last-modified'));
    // A weak form of the same tag, a list holding it, and `*` match too (RFC 9110 weak comparison).
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) expect((await get(SEARCH, { 'if-none-match': header })).status).toBe(304);

    const hit = await get(SEARCH);
    expect(hit.headers.get('etag')).toBe(etag);
    expect(await hit.text()).toBe(text);
    expect(callsSinceLast()).toEqual({});

    // A tag this answer does not carry is answered in full.
    const other = await get(SEARCH, { 'if-none-match': '"AAAAAAAAAAAAAAAAAAAAAA"' });
    expect(other.status).toBe(200);
  });

  it("answers another query's ETag with 200 and the query's own answer (markets(first: 4) is not markets(first: 6))", async () => {
    const four = await get('{ markets(first: 4) { edges { node { marketId } } } }');
    const fourTag = four.headers.get('etag')!;
    expect(fourTag).toBeTruthy();
    const six = await get('{ markets(first: 6) { edges { node { marketId } } } }', { 'if-none-match': fourTag });
    expect(six.status).toBe(200);
    expect((await six.json()).data.markets.edges).toHaveLength(6);
    expect(six.headers.get('etag')).not.toBe(fourTag);
  });

  it("answers another caller's private ETag with 200 and the caller's own data, and a changed answer with a new ETag", async () => {
    const mine = await get(VIEWER_CHANNELS, gw.viewerHeaders);
    const myTag = mine.headers.get('etag')!;
    expect(myTag).toBe(strongTag(await mine.clone().text()));
    const other = subscriberHeaders(otherSubscriber());
    const theirs = await get(VIEWER_CHANNELS, { ...other, 'if-none-match': myTag });
    expect(theirs.status).toBe(200);
    const theirTag = theirs.headers.get('etag')!;
    expect((await theirs.json()).data.viewer.id).not.toBe((await mine.json()).data.viewer.id);

    // The other caller adds an email channel: its old tag no longer matches, the new answer carries a new tag.
    const prepared = await gw.execute('mutation { prepareEmailChannel(input: { email: "changed@example.com" }) { userErrors { code } } }', {}, other);
    expect(prepared.errors).toBeUndefined();
    const changed = await get(VIEWER_CHANNELS, { ...other, 'if-none-match': theirTag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(theirTag);
  });

  it('answers a private result with Cache-Control private and an ETag holding nothing of the credentials', async () => {
    const response = await get(VIEWER_CHANNELS, gw.viewerHeaders);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe(`private, max-age=${gw.config.responseCacheTtlMs.private / 1000}`);
    const etag = response.headers.get('etag')!;
    expect(etag).toBe(strongTag(await response.text()));

    const revalidated = await get(VIEWER_CHANNELS, { ...gw.viewerHeaders, 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
  });

  it('takes the TTL of the shortest-lived data selected: prices under markets', async () => {
    const response = await get('{ markets(first: 2) { edges { node { id ... on LendingMarket { token { price { usd } } } } } } }');
    expect(response.headers.get('cache-control')).toBe(`public, max-age=${gw.config.responseCacheTtlMs.prices / 1000}`);
  });

  it('answers no-store when the result is not cached: errors, mutations; a client asking for a fresh answer executes it', async () => {
    const refused = await get(VIEWER_CHANNELS);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('etag')).toBeNull();

    const mutation = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...gw.viewerHeaders },
      body: JSON.stringify({ query: 'mutation { markNotificationsRead { userErrors { code } } }' }),
    });
    expect(mutation.status).toBe(200);
    expect(mutation.headers.get('cache-control')).toBe('no-store');

    await get(SEARCH);
    callsSinceLast();
    const fresh = await get(SEARCH, { 'cache-control': 'no-cache' });
    // `no-cache` asks for revalidation, not for an answer that may not be kept (issue 33 item 5).
    expect(fresh.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });

    // A debugging request's answer carries its own ledger: it bypasses the cache too.
    const debug = await get(SEARCH, { 'x-gateway-debug': '1' });
    expect(debug.headers.get('cache-control')).toBe('no-store');
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });
    // A header that asks for no ledger (any value but 1) gets none, so it is answered from the cache.
    const notDebug = await get(SEARCH, { 'x-gateway-debug': '0' });
    expect(notDebug.headers.get('cache-control')).toMatch(/^public, max-age=/);
    expect(callsSinceLast()).toEqual({});
  });
});

describe('metrics', () => {
  it('count hits, misses and requests the cache does not serve', async () => {
    await gw.execute(SEARCH);
    await gw.execute(SEARCH);
    await gw.execute(SEARCH);
    await gw.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, gw.viewerHeaders);
    const metrics = await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="miss"} 1');
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="hit"} 2');
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="bypass"} 1');
  });
});

describe('RESPONSE_CACHE=off', () => {
  it('answers every query from the upstreams, with no ETag', async () => {
    const off = await startTestGateway({ sim: gw.sim });
    try {
      for (let i = 0; i < 2; i++) {
        const response = await off.app.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(SEARCH)}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('etag')).toBeNull();
      }
      expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 2 });
    } finally {
      await off.close();
    }
  });
});
