import { beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { subscriberKey } from '../../src/credentials.js';
import { REVOCATIONS_TOPIC } from '../../src/stores/revocations.js';
import { useRedisReplicas, type GraphQLResponse, type TestGateway } from '../helpers/gateway.js';
import { useGatewayPerTest } from '../helpers/gateway-per-test.js';
import { needsRedis } from '../helpers/processes.js';

/**
 * A token the alerts service revoked reads nothing private again once any call with it is refused: a
 * refused background refresh ends its stale answers at once, a refused call of any request drops its
 * fresh ones, and its identity is no longer believed (issue 33 item 3).
 */
const CHANNELS = '{ viewer { id channels { key value verified } } }';
const IDENTITY = '{ viewer { id } }';
const UNREAD = '{ viewer { unreadCount } }';
/** Needs only the identity: answered from the identity memo with no upstream call while it is believed. */
const WALLET = '{ viewer { walletAddress wallet { address } } }';
const TTL_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Refused with UNAUTHENTICATED and no private data in the answer (the viewer, or the field that needs the alerts service, null). */
const refused = (answer: GraphQLResponse) =>
  answer.errors?.[0]?.extensions?.['code'] === 'UNAUTHENTICATED' && (answer.data?.['viewer'] === null || answer.data?.['viewer']?.unreadCount === null);

/** The identity memo on and a long grace for every entry: only the refusal can end what the token reads. */
function cacheConfig(privateTtlMs: number): Partial<Config> {
  return {
    responseCache: true,
    authIdentityTtlMs: 60_000,
    responseCacheGraceMs: 30_000,
    responseCachePrivateGraceMs: 30_000,
    responseCacheTtlMs: { markets: 30_000, prices: 10_000, metadata: 300_000, private: privateTtlMs },
  };
}

describe('a revoked token (one gateway)', () => {
  const { sim, start } = useGatewayPerTest();
  let gw: TestGateway | undefined;

  it('gets no stale private answer once the refresh of it was refused, whether it reads the alerts service or only the identity', async () => {
    gw = await start({ config: cacheConfig(TTL_MS) });
    const headers = gw.viewerHeaders;
    for (const query of [CHANNELS, IDENTITY]) expect((await gw.execute(query, {}, headers)).errors).toBeUndefined();

    sim.alerts.revokeToken(sim.alerts.demo.token);
    await sleep(TTL_MS + 200);
    for (const query of [CHANNELS, IDENTITY]) {
      // The first stale answer starts the refresh; once the alerts service refused it, nothing is served.
      await expect.poll(async () => refused(await gw!.execute(query, {}, headers)), { timeout: 5_000 }).toBe(true);
      for (let i = 0; i < 3; i++) expect(refused(await gw.execute(query, {}, headers))).toBe(true);
    }
    expect(gw.services.verifiedCallers.identity(subscriberKey({ authorization: headers.authorization!, clientKey: headers['x-service-client-key']! }))).toBeUndefined();
  });

  it('loses its fresh private answers and its identity as soon as any call with it is refused', async () => {
    gw = await start({ config: cacheConfig(60_000) });
    const headers = gw.viewerHeaders;
    for (const query of [CHANNELS, IDENTITY]) expect((await gw.execute(query, {}, headers)).errors).toBeUndefined();
    // Still fresh for a minute: answered from the cache, no call.
    sim.controls.resetCounts();
    expect((await gw.execute(CHANNELS, {}, headers)).errors).toBeUndefined();
    expect(sim.controls.counts()).toEqual({});

    sim.alerts.revokeToken(sim.alerts.demo.token);
    // Another screen of the same caller reaches the alerts service, which refuses the token.
    expect(refused(await gw.execute(UNREAD, {}, headers))).toBe(true);
    expect(refused(await gw.execute(CHANNELS, {}, headers))).toBe(true);
    expect(refused(await gw.execute(IDENTITY, {}, headers))).toBe(true);
  });

  it('does not touch another caller’s entries', async () => {
    gw = await start({ config: cacheConfig(60_000) });
    const demo = sim.alerts.demo;
    const other = [...sim.alerts.subscribers.values()].find((s) => s.walletAddress !== demo.walletAddress)!;
    const otherHeaders = { authorization: `Bearer ${other.token}`, 'x-service-client-key': demo.clientKey };
    const theirs = await gw.execute(CHANNELS, {}, otherHeaders);
    expect(theirs.errors).toBeUndefined();
    await gw.execute(CHANNELS, {}, gw.viewerHeaders);
    sim.alerts.revokeToken(demo.token);
    expect(refused(await gw.execute(UNREAD, {}, gw.viewerHeaders))).toBe(true);
    sim.controls.resetCounts();
    expect(await gw.execute(CHANNELS, {}, otherHeaders)).toEqual(theirs);
    expect(sim.controls.counts()).toEqual({});
  });
});

describe.runIf(needsRedis('test/response-cache/revoked-token.test.ts'))('a revoked token (two replicas sharing Redis)', () => {
  const r = useRedisReplicas({ config: cacheConfig(60_000), resetEach: true });
  // Both replicas listen for refusals before a test remembers anything (each forgets every identity when it subscribes).
  beforeEach(async () => {
    await expect.poll(async () => (await r.probe.pubsub('NUMSUB', REVOCATIONS_TOPIC))[1], { timeout: 10_000 }).toBe(2);
  });

  it('loses on replica A the answers A cached, once replica B’s call with it was refused', async () => {
    const fromA = await r.a.execute(CHANNELS, {}, r.a.viewerHeaders);
    expect(fromA.errors).toBeUndefined();
    await expect.poll(async () => (await r.probe.keys('gateway:rc2:*.*')).length).toBe(1);
    r.sim.controls.resetCounts();
    expect(await r.a.execute(CHANNELS, {}, r.a.viewerHeaders)).toEqual(fromA);
    expect(r.sim.controls.counts()).toEqual({});

    r.sim.alerts.revokeToken(r.sim.alerts.demo.token);
    expect(refused(await r.b.execute(UNREAD, {}, r.b.viewerHeaders))).toBe(true);
    // Dropped from Redis, where every replica reads it.
    await expect.poll(() => r.probe.keys('gateway:rc2:*.*')).toEqual([]);
    // A has forgotten the identity too (B published the refusal): A asks who the token is, and is refused.
    const key = subscriberKey({ authorization: r.a.viewerHeaders.authorization!, clientKey: r.a.viewerHeaders['x-service-client-key']! });
    await expect.poll(() => r.a.services.verifiedCallers.identity(key), { timeout: 5_000 }).toBeUndefined();
    r.sim.controls.resetCounts();
    const lastA = await r.a.execute(CHANNELS, {}, r.a.viewerHeaders);
    expect(lastA.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(lastA.data?.['viewer']?.channels ?? null).toBeNull();
    expect(r.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it('is refused on replica B at once when replica A saw the refusal, although B remembered the identity', async () => {
    const key = subscriberKey({ authorization: r.b.viewerHeaders.authorization!, clientKey: r.b.viewerHeaders['x-service-client-key']! });
    const fromB = await r.b.execute(WALLET, {}, r.b.viewerHeaders);
    expect(fromB.errors).toBeUndefined();
    await expect.poll(async () => (await r.probe.keys('gateway:rc2:*.*')).length).toBe(1);
    expect(r.b.services.verifiedCallers.identity(key)).toBeDefined();

    r.sim.alerts.revokeToken(r.sim.alerts.demo.token);
    expect(refused(await r.a.execute(UNREAD, {}, r.a.viewerHeaders))).toBe(true);
    // The word travels by Redis pub/sub: B forgets the identity without any call of its own (and A dropped B's cached answer).
    await expect.poll(() => r.b.services.verifiedCallers.identity(key), { timeout: 5_000 }).toBeUndefined();
    await expect.poll(() => r.probe.keys('gateway:rc2:*.*')).toEqual([]);
    r.sim.controls.resetCounts();
    expect(refused(await r.b.execute(WALLET, {}, r.b.viewerHeaders))).toBe(true);
    expect(r.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it('forgets every remembered identity when its subscription returns after Redis was away (a revocation may have been missed)', async () => {
    const key = subscriberKey({ authorization: r.b.viewerHeaders.authorization!, clientKey: r.b.viewerHeaders['x-service-client-key']! });
    expect((await r.b.execute(WALLET, {}, r.b.viewerHeaders)).errors).toBeUndefined();
    expect(r.b.services.verifiedCallers.identity(key)).toBeDefined();

    await r.stopRedis();
    await r.startRedis();
    await expect.poll(() => r.b.services.verifiedCallers.identity(key), { timeout: 15_000 }).toBeUndefined();
    // The next request verifies the token again: one call, and the answer as before.
    await r.probe.flushall();
    r.sim.controls.resetCounts();
    const again = await r.b.execute(WALLET, {}, r.b.viewerHeaders);
    expect(again.errors).toBeUndefined();
    expect(r.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it('tells the other replicas of a refusal seen while its own Redis connection was down, once it is back', async () => {
    const key = subscriberKey({ authorization: r.b.viewerHeaders.authorization!, clientKey: r.b.viewerHeaders['x-service-client-key']! });
    expect((await r.b.execute(WALLET, {}, r.b.viewerHeaders)).errors).toBeUndefined();
    const aRedis = r.a.services.redis!;
    // Redis restarted in the test before: A's client may still be reconnecting, and a connect in progress
    // outlives a disconnect. From 'ready' the disconnect ends the connection for good ('end').
    await expect.poll(() => aRedis.status, { timeout: 15_000 }).toBe('ready');
    aRedis.disconnect();
    await expect.poll(() => aRedis.status, { timeout: 5_000 }).toBe('end');
    r.sim.alerts.revokeToken(r.sim.alerts.demo.token);
    expect(refused(await r.a.execute(UNREAD, {}, r.a.viewerHeaders))).toBe(true);
    expect(r.b.services.verifiedCallers.identity(key)).toBeDefined();

    await aRedis.connect();
    await expect.poll(() => r.b.services.verifiedCallers.identity(key), { timeout: 5_000 }).toBeUndefined();
    r.sim.controls.resetCounts();
    // A document B has not cached (A could not drop B's cached WALLET answer from Redis while away: that ends with its TTL).
    expect(refused(await r.b.execute(IDENTITY, {}, r.b.viewerHeaders))).toBe(true);
    expect(r.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });
});
