import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { CURSOR_KEY_REDIS_KEY } from '../../src/stores/cursor-keys.js';
import { freePort, needsRedis, startGatewayProcess, startRedis, stopProcess, untilGatewayReady, type StartedProcess } from '../helpers/processes.js';

/**
 * Replicas as real processes (`src/server.ts`) in production with neither CURSOR_SECRET nor
 * WEBHOOK_SECRET, sharing one redis-server: each signs cursors with the key the first one stored there,
 * so page 2 may be asked of another replica than page 1.
 */
const runs = needsRedis('test/cluster/cursor-keys.test.ts');

interface Replica {
  execute(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ data?: Record<string, any>; errors?: { extensions?: Record<string, unknown> }[] }>;
}

function replica(url: string): Replica {
  return {
    async execute(query, variables = {}, headers = {}) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as Awaited<ReturnType<Replica['execute']>>;
    },
  };
}

const MARKETS = `query ($after: String) { markets(first: 3, after: $after) { pageInfo { endCursor } edges { node { marketId } } } }`;
const SEARCH = `query ($after: String) { searchAssets(query: "sol", first: 2, after: $after) { pageInfo { endCursor } edges { node { assetId } } } }`;
const INBOX = `query ($after: String) { viewer { inbox(first: 2, after: $after) { pageInfo { endCursor } edges { node { notificationId } } } } }`;

type Page = { pageInfo: { endCursor: string | null }; edges: { node: Record<string, string> }[] };

/** Page 1 from `first`, page 2 from `second` (the balancer sent it elsewhere): the ids of both pages. */
async function twoPages(first: Replica, second: Replica, query: string, pick: (data: Record<string, any>) => Page, headers: Record<string, string> = {}) {
  const one = await first.execute(query, {}, headers);
  expect(one.errors).toBeUndefined();
  const after = pick(one.data!).pageInfo.endCursor;
  expect(after).toEqual(expect.any(String));
  const two = await second.execute(query, { after }, headers);
  expect(two.errors).toBeUndefined();
  const ids = (page: Page) => page.edges.map((edge) => Object.values(edge.node)[0]);
  return { one: ids(pick(one.data!)), two: ids(pick(two.data!)) };
}

describe.runIf(runs)('cursor keys shared by replicas through Redis, in production with no secret', () => {
  const started: StartedProcess[] = [];
  let redis: ChildProcess;
  let redisUrl: string;
  let sim: Simulator;
  let a: Replica;
  let b: Replica;
  let viewer: Record<string, string>;
  /** A gateway process in production over the simulator and the shared Redis, ready. */
  async function start(env: Record<string, string> = {}): Promise<Replica> {
    const gateway = await startGatewayProcess(sim.urls, { NODE_ENV: 'production', REDIS_URL: redisUrl, CURSOR_SECRET: '', WEBHOOK_SECRET: '', ...env });
    started.push(gateway.process);
    await untilGatewayReady(gateway.url);
    return replica(gateway.url);
  }

  beforeAll(async () => {
    const port = await freePort();
    redisUrl = `redis://127.0.0.1:${port}`;
    [redis, sim] = await Promise.all([startRedis(port), startSimulator({ seed: 42 })]);
    viewer = { authorization: `Bearer ${sim.alerts.demo.token}`, 'x-service-client-key': sim.alerts.demo.clientKey };
    [a, b] = await Promise.all([start(), start()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(started.map((one) => stopProcess(one.child)));
    await sim?.close();
    await stopProcess(redis);
  });

  it('pages markets across replicas: page 2 asked of replica B continues page 1 of replica A', async () => {
    const { one, two } = await twoPages(a, b, MARKETS, (d) => d['markets']);
    expect(one).toHaveLength(3);
    expect(two).toHaveLength(3);
    const all = await a.execute(`{ markets(first: 6) { edges { node { marketId } } } }`);
    expect([...one, ...two]).toEqual(all.data!['markets'].edges.map((e: { node: { marketId: string } }) => e.node.marketId));
  });

  it('pages a search and the inbox across replicas alike, in both directions', async () => {
    const search = await twoPages(b, a, SEARCH, (d) => d['searchAssets']);
    expect(search.two).toHaveLength(2);
    expect(search.two).not.toContain(search.one[0]);
    const inbox = await twoPages(a, b, INBOX, (d) => d['viewer']['inbox'], viewer);
    expect(inbox.two).toHaveLength(2);
    expect(inbox.two).not.toContain(inbox.one[0]);
  });

  it('keeps one generated key in Redis; a replica started later with CURSOR_SECRET still accepts the cursors signed with it', async () => {
    const probe = new Redis(redisUrl);
    try {
      expect(await probe.get(CURSOR_KEY_REDIS_KEY)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      probe.disconnect();
    }
    const rotated = await start({ CURSOR_SECRET: 'rotated' });
    const after: string = (await a.execute(MARKETS)).data!['markets'].pageInfo.endCursor;
    await expect.poll(async () => (await rotated.execute(MARKETS, { after })).errors).toBeUndefined();
    // Its own cursors are signed with CURSOR_SECRET, which the replicas without it do not know (a page of
    // four: the shared response cache holds replica A's page of three, cursors included).
    const four = MARKETS.replace('first: 3', 'first: 4');
    const own: string = (await rotated.execute(four)).data!['markets'].pageInfo.endCursor;
    expect((await b.execute(four, { after: own })).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  }, 30_000);
});
