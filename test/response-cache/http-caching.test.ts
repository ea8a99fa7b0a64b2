import { describe, expect, it } from 'vitest';
import { strongTag } from '../../src/etag.js';
import { gw, SEARCH, VIEWER_CHANNELS, callsSinceLast, subscriberHeaders, otherSubscriber, get, useCachedGatewayPerTest } from '../helpers/response-cache-gateway.js';

useCachedGatewayPerTest();

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
