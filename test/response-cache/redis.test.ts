import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, needsRedis, startRedis, stopProcess as stopRedis } from '../helpers/processes.js';

const runs = needsRedis('test/response-cache/redis.test.ts');

describe.runIf(runs)('the response cache shared by replicas through Redis', () => {
  let server: ChildProcess;
  let probe: Redis;
  let sim: Simulator;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    const port = await freePort();
    server = await startRedis(port);
    const redisUrl = `redis://127.0.0.1:${port}`;
    probe = new Redis(redisUrl);
    probe.on('error', () => {}); // reconnects while the outage case has the server down
    sim = await startSimulator({ seed: 42 });
    a = await startTestGateway({ sim, config: { redisUrl, responseCache: true } });
    b = await startTestGateway({ sim, config: { redisUrl, responseCache: true } });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sim?.close();
    probe?.disconnect();
    await stopRedis(server);
  });

  beforeEach(async () => {
    await probe.flushall();
    sim.alerts.reset();
    sim.controls.reset();
  });

  /** The cache writes after answering: wait until Redis holds `n` results. */
  async function cachedResults(n: number): Promise<void> {
    await expect.poll(async () => (await probe.keys('gateway:rc:*.*')).length).toBe(n);
  }

  it('answers on replica B what replica A just cached, with no upstream call', async () => {
    const query = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
    const fromA = await a.execute(query);
    expect(fromA.errors).toBeUndefined();
    expect(sim.controls.counts()).toEqual({ 'assets GET /v0/search': 1 });
    await cachedResults(1);
    sim.controls.resetCounts();

    const fromB = await b.execute(query);
    expect(fromB).toEqual(fromA);
    expect(sim.controls.counts()).toEqual({});
    // Nothing but the prefixed result is stored: no index of public results grows.
    expect(await probe.keys('gateway:rc:*')).toEqual([expect.stringMatching(/^gateway:rc:public\.[0-9a-f]{64}$/)]);
  });

  it('drops a caller’s results on every replica after their mutation on one', async () => {
    const query = '{ viewer { id unreadCount } }';
    const before = await a.execute(query, {}, a.viewerHeaders);
    expect(before.data!['viewer'].unreadCount).toBeGreaterThan(0);
    await cachedResults(1);
    const stored = await probe.keys('*');
    // Keyed by a hash of the credentials, never the token itself.
    expect(stored.join(' ')).not.toContain(sim.alerts.demo.token);
    sim.controls.resetCounts();
    expect(await b.execute(query, {}, b.viewerHeaders)).toEqual(before);
    expect(sim.controls.counts()).toEqual({});

    const read = await b.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, b.viewerHeaders);
    expect(read.data).toEqual({ markNotificationsRead: { userErrors: [] } });
    await cachedResults(0);
    sim.controls.resetCounts();

    const after = await a.execute(query, {}, a.viewerHeaders);
    expect(after.data!['viewer'].unreadCount).toBe(0);
    expect(sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/history/summary': 1 });
  });

  it('answers from the upstreams while Redis is unreachable', async () => {
    const query = '{ searchAssets(query: "eth", first: 2) { edges { node { assetId } } } }';
    const expected = await a.execute(query);
    await cachedResults(1);
    await probe.flushall();
    const port = Number(probe.options.port);
    await stopRedis(server);
    try {
      sim.controls.resetCounts();
      const during = await a.execute(query);
      expect(during).toEqual(expected);
      expect(sim.controls.counts()).toEqual({ 'assets GET /v0/search': 1 });
    } finally {
      server = await startRedis(port);
    }
  });
});
