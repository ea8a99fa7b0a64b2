import { describe, expect, it } from 'vitest';
import { useRedisReplicas } from '../helpers/gateway.js';
import { needsRedis } from '../helpers/processes.js';

const runs = needsRedis('test/response-cache/redis.test.ts');

describe.runIf(runs)('the response cache shared by replicas through Redis', () => {
  const r = useRedisReplicas({ config: { responseCache: true }, resetEach: true });

  /** The cache writes after answering: wait until Redis holds `n` results. */
  async function cachedResults(n: number): Promise<void> {
    await expect.poll(async () => (await r.probe.keys('gateway:rc2:*.*')).length).toBe(n);
  }

  it('answers on replica B what replica A just cached, with no upstream call', async () => {
    const query = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
    const fromA = await r.a.execute(query);
    expect(fromA.errors).toBeUndefined();
    expect(r.sim.controls.counts()).toEqual({ 'assets GET /v0/search': 1 });
    await cachedResults(1);
    r.sim.controls.resetCounts();

    const fromB = await r.b.execute(query);
    expect(fromB).toEqual(fromA);
    expect(r.sim.controls.counts()).toEqual({});
    // Nothing but the prefixed result is stored: no index of public results grows.
    expect(await r.probe.keys('gateway:rc2:*')).toEqual([expect.stringMatching(/^gateway:rc2:public\.[0-9a-f]{64}$/)]);
  });

  it('drops a caller’s results on every replica after their mutation on one', async () => {
    const query = '{ viewer { id unreadCount } }';
    const before = await r.a.execute(query, {}, r.a.viewerHeaders);
    expect(before.data!['viewer'].unreadCount).toBeGreaterThan(0);
    await cachedResults(1);
    const stored = await r.probe.keys('*');
    // Keyed by a hash of the credentials, never the token itself.
    expect(stored.join(' ')).not.toContain(r.sim.alerts.demo.token);
    r.sim.controls.resetCounts();
    expect(await r.b.execute(query, {}, r.b.viewerHeaders)).toEqual(before);
    expect(r.sim.controls.counts()).toEqual({});

    const read = await r.b.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, r.b.viewerHeaders);
    expect(read.data).toEqual({ markNotificationsRead: { userErrors: [] } });
    await cachedResults(0);
    r.sim.controls.resetCounts();

    const after = await r.a.execute(query, {}, r.a.viewerHeaders);
    expect(after.data!['viewer'].unreadCount).toBe(0);
    expect(r.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/history/summary': 1 });
  });

  it('answers from the upstreams while Redis is unreachable', async () => {
    const query = '{ searchAssets(query: "eth", first: 2) { edges { node { assetId } } } }';
    const expected = await r.a.execute(query);
    await cachedResults(1);
    await r.probe.flushall();
    await r.stopRedis();
    try {
      r.sim.controls.resetCounts();
      const during = await r.a.execute(query);
      expect(during).toEqual(expected);
      expect(r.sim.controls.counts()).toEqual({ 'assets GET /v0/search': 1 });
    } finally {
      await r.startRedis();
    }
  });
});
