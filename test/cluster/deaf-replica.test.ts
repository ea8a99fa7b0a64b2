import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { trending } from '../events/helpers.js';
import { freePort, needsRedis, startGatewayProcess, startRedis, stopProcess, untilGatewayReady, type StartedProcess } from '../helpers/processes.js';

/**
 * Fresh replica pairs (real processes, `node --import tsx src/server.ts`) on one real redis-server,
 * with event streams opened on each replica as soon as its port answers, racing its start-up: every
 * event posted to either replica must reach every stream on both.
 */
const FILE = 'test/cluster/deaf-replica.test.ts';
const haveRedis = needsRedis(FILE);
const SECRET = 'deaf-replica-secret';
/** The gateway's Redis command timeout (services.ts). */
const REDIS_COMMAND_TIMEOUT_MS = 1000;
const PAIRS = 4;

describe.runIf(haveRedis)('no deaf replica', () => {
  let redis: ChildProcess | undefined;
  let redisPort: number;
  let sim: Simulator;
  const started: StartedProcess[] = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    sim = await startSimulator({ seed: 42 });
  }, 30_000);

  afterAll(async () => {
    await Promise.all(started.map(({ child }) => stopProcess(child)));
    await stopProcess(redis);
    await sim?.close();
  }, 30_000);

  async function replica(): Promise<string> {
    const { url, process: gateway } = await startGatewayProcess(sim.urls, { REDIS_URL: `redis://127.0.0.1:${redisPort}`, WEBHOOK_SECRET: SECRET });
    started.push(gateway);
    return url;
  }

  async function post(url: string, id: string): Promise<number> {
    const raw = JSON.stringify({ events: [trending(id)] });
    const response = await fetch(`${url}/webhooks/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, raw) },
      body: raw,
    });
    await response.arrayBuffer();
    return response.status;
  }

  it(`delivers every event to streams opened while ${PAIRS} fresh replica pairs start`, async () => {
    const deaf: string[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const [a, b] = await Promise.all([replica(), replica()]);
      // Streams racing start-up: opened at once, before either replica reports ready.
      const streams = await Promise.all([a, a, b, b].map((url) => openEvents(url)));
      for (const stream of streams) expect(stream.status).toBe(200);
      await Promise.all([a, b].map(untilGatewayReady));
      const ids = [`pair-${pair}-to-a`, `pair-${pair}-to-b`];
      expect(await post(a, ids[0]!)).toBe(200);
      expect(await post(b, ids[1]!)).toBe(200);
      const received = await Promise.all(streams.map((stream) => stream.collect(2, 5000)));
      received.forEach((got, i) => {
        if (got.sort().join() !== [...ids].sort().join()) deaf.push(`pair ${pair}, stream ${i} on ${i < 2 ? 'A' : 'B'}: got ${JSON.stringify(got)}`);
      });
      for (const stream of streams) stream.close();
    }
    expect(deaf).toEqual([]);
  }, 180_000);

  it('answers reads without waiting on Redis while it is away, and /health', async () => {
    const url = await replica();
    await untilGatewayReady(url);
    const query = async () => {
      const startedAt = performance.now();
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ markets(first: 2) { edges { node { marketId } } } }' }),
      });
      const body = (await response.json()) as { data?: { markets: { edges: unknown[] } } };
      return { status: response.status, ms: performance.now() - startedAt, edges: body.data?.markets.edges.length };
    };
    expect((await query()).edges).toBe(2);
    await stopProcess(redis);
    try {
      // The first read may meet the connection as it breaks; afterwards no read waits on Redis.
      await query();
      const reads = [];
      for (let i = 0; i < 5; i++) reads.push(await query());
      for (const read of reads) expect(read).toMatchObject({ status: 200, edges: 2 });
      // A read that waited on Redis would take its command timeout (services.ts: 1 s) at least; a read
      // that does not takes a few milliseconds, so the bound holds on a busy machine.
      expect(Math.max(...reads.map((read) => read.ms))).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      redis = await startRedis(redisPort);
    }
  }, 60_000);
});

/** An SSE stream of `Subscription.events`; `collect` reads event ids until `count` or `timeoutMs`. */
async function openEvents(url: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { events { eventId } }' }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    status: response.status,
    async collect(count: number, timeoutMs: number): Promise<string[]> {
      const ids: string[] = [];
      const deadline = setTimeout(() => controller.abort(), timeoutMs);
      try {
        while (ids.length < count) {
          const chunk = await reader.read();
          if (chunk.done) break;
          buffer += decoder.decode(chunk.value, { stream: true });
          const blocks = buffer.split('\n\n');
          buffer = blocks.pop()!;
          for (const block of blocks) {
            const lines = block.split('\n');
            if (!lines.includes('event: next')) continue;
            const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
            ids.push((JSON.parse(data) as { data: { events: { eventId: string } } }).data.events.eventId);
          }
        }
      } catch {
        // aborted at the deadline: what arrived is the answer
      } finally {
        clearTimeout(deadline);
      }
      return ids;
    },
    close: () => controller.abort(),
  };
}
