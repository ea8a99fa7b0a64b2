import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { attachGraphQLWs } from '../../src/ws.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, requireBinary, startRedis, stopProcess } from '../helpers/processes.js';

const haveRedis = requireBinary('test/plugins/rate-limit.test.ts', 'redis-server', ['--version'], 'apt-get install redis-server');

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-service-client-key': 'ck_any' });

/** One `{ __typename }` over HTTP (in memory): status, Retry-After and the error's extensions. */
async function ask(gw: TestGateway, headers: Record<string, string> = {}) {
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), data: body.data, extensions: body.errors?.[0]?.extensions };
}

let sim: Simulator;
const gateways: TestGateway[] = [];
beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gw) => gw.close()));
});
afterAll(() => sim.close());

async function gateway(config: Parameters<typeof startTestGateway>[0] = {}) {
  const gw = await startTestGateway({ sim, ...config });
  gateways.push(gw);
  return gw;
}

describe('rate limit per caller, in process', () => {
  it('defaults to 3,000 operations a minute; RATE_LIMIT_PER_MINUTE sets it and 0 turns it off', () => {
    expect(loadConfig({}).rateLimitPerMinute).toBe(3000);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
  });

  it('refuses the operation past the limit with RATE_LIMITED, retryAfterSeconds, 429 and Retry-After', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 3 } });
    for (let i = 0; i < 3; i++) expect(await ask(gw, bearer('alice'))).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    const refused = await ask(gw, bearer('alice'));
    expect(refused.status).toBe(429);
    expect(refused.data).toBeUndefined();
    expect(refused.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    const seconds = refused.extensions!['retryAfterSeconds'] as number;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.retryAfter).toBe(String(seconds));
    // Another subscriber has a budget of its own; the same token with another client key is another caller too.
    expect((await ask(gw, bearer('bob'))).status).toBe(200);
    expect((await ask(gw, { ...bearer('alice'), 'x-service-client-key': 'ck_other' })).status).toBe(200);
  });

  it('counts answers from the response cache too: a cached query is still an operation of its caller', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 3, responseCache: true } });
    const page = '{ markets(first: 2) { edges { node { marketId } } } }';
    const first = await gw.execute(page, {}, bearer('carol'));
    expect(first.errors).toBeUndefined();
    // Two more from the cache (no upstream call), then the fourth is refused although the cache holds it.
    gw.sim.controls.resetCounts();
    for (let i = 0; i < 2; i++) expect((await gw.execute(page, {}, bearer('carol'))).data).toEqual(first.data);
    expect(gw.sim.controls.counts()).toEqual({});
    const refused = await gw.execute(page, {}, bearer('carol'));
    expect(refused.status).toBe(429);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('counts sends against the API key, not the subscriber', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 1 } });
    const { demo } = sim.alerts;
    const send = (apiKey: string) =>
      gw.execute(
        'mutation ($input: SendNotificationInput!) { sendNotification(input: $input) { accepted } }',
        { input: { appId: demo.appId, channels: ['IN_APP'], title: 't', body: 'b', recipient: { walletAddress: demo.walletAddress } } },
        { ...bearer('alice'), 'x-service-api-key': apiKey },
      );
    expect((await ask(gw, bearer('alice'))).status).toBe(200);
    // alice's budget is spent, but a send spends the app's.
    expect((await send(demo.apiKey)).data).toEqual({ sendNotification: { accepted: true } });
    expect((await send(demo.apiKey)).errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await send('sak_two')).errors?.[0]?.extensions?.['code']).not.toBe('RATE_LIMITED');
  });

  it('is off at 0', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 0 } });
    for (let i = 0; i < 20; i++) expect((await ask(gw)).status).toBe(200);
  });

  it('counts each WebSocket operation, and the address of an anonymous caller across HTTP and WebSocket', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 3 } });
    const server = createServer(gw.app.yoga);
    const closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const run = async () => {
      for await (const result of client.iterate({ query: '{ __typename }' })) return result;
      return undefined;
    };
    try {
      for (let i = 0; i < 2; i++) expect((await run())?.data).toEqual({ __typename: 'Query' });
      const overHttp = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(overHttp.status).toBe(200);
      const refused = await run();
      expect(refused?.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    } finally {
      await client.dispose();
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe.runIf(haveRedis)('rate limit shared across replicas through Redis', () => {
  let redis: ChildProcess;
  let redisUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    redisUrl = `redis://127.0.0.1:${port}`;
  });
  afterAll(() => stopProcess(redis));

  it('counts one caller on both replicas together', async () => {
    const a = await gateway({ config: { rateLimitPerMinute: 4, redisUrl } });
    const b = await gateway({ config: { rateLimitPerMinute: 4, redisUrl } });
    for (const gw of [a, b, a, b]) expect((await ask(gw, bearer('carol'))).status).toBe(200);
    expect(await ask(a, bearer('carol'))).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect(await ask(b, bearer('carol'))).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect((await ask(b, bearer('dave'))).status).toBe(200);
  });

  it('keeps limiting in process while Redis is away', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const gw = await gateway({ config: { rateLimitPerMinute: 2, redisUrl: unreachable } });
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(429);
  });
});
