import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { VERIFY_ATTEMPTS_PER_ADDRESS } from '../../src/plugins/caller-verification.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { attachGraphQLWs } from '../../src/ws.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, requireBinary, startRedis, stopProcess } from '../helpers/processes.js';
import { nodeListener } from '../../src/node-http.js';

const haveRedis = requireBinary('test/plugins/rate-limit.test.ts', 'redis-server', ['--version'], 'apt-get install redis-server');

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-service-client-key': 'ck_any' });

/** One `{ __typename }` over HTTP (in memory), from a client at `address` (the socket's peer): status, Retry-After and the error's extensions. */
async function ask(gw: TestGateway, headers: Record<string, string> = {}, address = '203.0.113.7') {
  const response = await gw.app.yoga.fetch(
    'http://gateway.test/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query: '{ __typename }' }),
    },
    { req: peer(address, headers) },
  );
  const body = (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), data: body.data, extensions: body.errors?.[0]?.extensions };
}

/** The node request a server would hand Yoga: the socket's peer address and the headers as received. */
function peer(address: string, headers: Record<string, string> = {}) {
  return { socket: { remoteAddress: address }, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
}

/** Has the alerts service verify the demo subscriber's token (a viewer query), as a screen's first request does. */
async function verify(gw: TestGateway, headers: Record<string, string>, address = '203.0.113.7') {
  const response = await gw.app.yoga.fetch(
    'http://gateway.test/graphql',
    { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ viewer { id } }' }) },
    { req: peer(address, headers) },
  );
  expect(((await response.json()) as { data: { viewer: { id: string } | null } }).data.viewer).not.toBeNull();
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
    for (let i = 0; i < 3; i++) expect(await ask(gw)).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    const refused = await ask(gw);
    expect(refused.status).toBe(429);
    expect(refused.data).toBeUndefined();
    expect(refused.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    const seconds = refused.extensions!['retryAfterSeconds'] as number;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.retryAfter).toBe(String(seconds));
    // Another client address has a budget of its own.
    expect((await ask(gw, {}, '203.0.113.8')).status).toBe(200);
  });

  it('counts forged or unverified credentials against the address: rotating tokens or client keys buys nothing', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 3, authIdentityTtlMs: 60_000 } });
    const { demo } = sim.alerts;
    const real = { authorization: `Bearer ${demo.token}`, 'x-service-client-key': demo.clientKey };
    await verify(gw, real, '198.51.100.1');
    // From one address: random forged tokens, then the real token with random client keys (which the
    // alerts service refuses, so they are never verified).
    expect((await ask(gw, bearer(`forged-${Math.random()}`))).status).toBe(200);
    expect((await ask(gw, bearer(`forged-${Math.random()}`))).status).toBe(200);
    expect((await ask(gw, { ...real, 'x-service-client-key': `ck_${Math.random()}` })).status).toBe(200);
    expect((await ask(gw, bearer(`forged-${Math.random()}`))).status).toBe(429);
    expect((await ask(gw, { ...real, 'x-service-client-key': `ck_${Math.random()}` })).status).toBe(429);
    // A forged token costs one auth call to be counted, within the attempts its address may spend
    // (bounded and counted: rate-limit-callers.test.ts).
    gw.sim.controls.resetCounts();
    await ask(gw, bearer('forged-again'));
    expect(gw.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it('counts a verified subscriber as itself, however its token is spelled and from wherever it comes', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 4, authIdentityTtlMs: 60_000 } });
    const { demo } = sim.alerts;
    const spellings = [
      { authorization: `Bearer ${demo.token}`, 'x-service-client-key': demo.clientKey },
      { authorization: `  bearer   ${demo.token}\t`, 'x-service-client-key': demo.clientKey },
      { authorization: `BEARER ${demo.token}`, 'x-service-client-key': demo.clientKey },
    ];
    // The first request is verified by the alerts service before it is counted: it is the subscriber's first operation.
    await verify(gw, spellings[0]!, '198.51.100.1');
    // Three operations of the same subscriber from three addresses and three spellings: one budget.
    for (const [i, headers] of spellings.entries()) expect((await ask(gw, headers, `198.51.100.${10 + i}`)).status).toBe(200);
    expect((await ask(gw, spellings[1], '198.51.100.20')).status).toBe(429);
    // Anonymous callers at those addresses still have their own budgets.
    expect((await ask(gw, {}, '198.51.100.10')).status).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 2 } });
    expect((await ask(gw, {}, '2001:db8:1:2::1')).status).toBe(200);
    expect((await ask(gw, {}, '2001:db8:1:2:ffff:1:2:3')).status).toBe(200);
    expect((await ask(gw, {}, '2001:db8:1:2:abcd::9')).status).toBe(429);
    expect((await ask(gw, {}, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('believes X-Forwarded-For and Forwarded only from TRUSTED_PROXIES', async () => {
    const trusting = await gateway({ config: { rateLimitPerMinute: 1, trustedProxies: { ranges: ['10.0.0.0/8'] } } });
    // Through the trusted proxy 10.0.0.5, two clients are two callers.
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.1' }, '10.0.0.5')).status).toBe(200);
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.2' }, '10.0.0.5')).status).toBe(200);
    expect((await ask(trusting, { forwarded: 'for=192.0.2.3;proto=https' }, '10.0.0.5')).status).toBe(200);
    expect((await ask(trusting, { forwarded: 'for="[2001:db8::1]:443"' }, '10.0.0.5')).status).toBe(200);
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.1' }, '10.0.0.5')).status).toBe(429);
    // A client that forges the header in front of the proxy is still itself: the proxy appended its address.
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.99, 192.0.2.2' }, '10.0.0.5')).status).toBe(429);
    // An untrusted peer's header is ignored: the peer is the client.
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.50' }, '198.51.100.77')).status).toBe(200);
    expect((await ask(trusting, { 'x-forwarded-for': '192.0.2.51' }, '198.51.100.77')).status).toBe(429);
    // With no trusted proxy (the default) every forwarded header is ignored.
    const plain = await gateway({ config: { rateLimitPerMinute: 1 } });
    expect((await ask(plain, { 'x-forwarded-for': '192.0.2.1' }, '10.0.0.5')).status).toBe(200);
    expect((await ask(plain, { 'x-forwarded-for': '192.0.2.2' }, '10.0.0.5')).status).toBe(429);
  });

  it('reads TRUSTED_PROXIES as CIDR ranges or a hop count, and names it when wrong', () => {
    expect(loadConfig({}).trustedProxies).toEqual({ ranges: [] });
    expect(loadConfig({ TRUSTED_PROXIES: '2' }).trustedProxies).toEqual({ hops: 2 });
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, loopback' }).trustedProxies).toEqual({ ranges: ['10.0.0.0/8', 'loopback'] });
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.internal' })).toThrow(/TRUSTED_PROXIES/);
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

  it('counts sends against the API key once the alerts service took it, else against the address', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 1, authIdentityTtlMs: 60_000 } });
    const { demo } = sim.alerts;
    const send = async (apiKey: string, address: string) =>
      Promise.resolve(
        gw.app.yoga.fetch(
          'http://gateway.test/graphql',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
            body: JSON.stringify({
              query: 'mutation ($input: SendNotificationInput!) { sendNotification(input: $input) { accepted } }',
              variables: { input: { appId: demo.appId, channels: ['IN_APP'], title: 't', body: 'b', recipient: { walletAddress: demo.walletAddress } } },
            }),
          },
          { req: peer(address) },
        ),
      ).then((r) => r.json() as Promise<{ data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }>);
    // The first send with the key counts against its address; the service takes the key.
    expect((await send(demo.apiKey, '198.51.100.1')).data).toEqual({ sendNotification: { accepted: true } });
    // From then on the key's sends count against the key: the address's budget is not touched.
    expect((await send(demo.apiKey, '198.51.100.2')).data).toEqual({ sendNotification: { accepted: true } });
    expect((await send(demo.apiKey, '198.51.100.3')).errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await ask(gw, {}, '198.51.100.2')).status).toBe(200);
    // A forged key counts against the address, as anything unverified.
    expect((await send('sak_forged', '198.51.100.4')).errors?.[0]?.extensions?.['code']).not.toBe('RATE_LIMITED');
    expect((await send('sak_forged_2', '198.51.100.4')).errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('is off at 0', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 0 } });
    for (let i = 0; i < 20; i++) expect((await ask(gw)).status).toBe(200);
  });

  it('counts each WebSocket operation, and the address of an anonymous caller across HTTP and WebSocket', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 3 } });
    const server = createServer(nodeListener(gw.app.yoga));
    const closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Forged credentials in connectionParams (a new token each connection) count against the address too.
    const client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
      connectionParams: () => ({ authorization: `Bearer forged-${Math.random()}`, 'x-service-client-key': 'ck_forged' }),
    });
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

/** Behind one address shared by many people (a carrier's CGNAT). */
const CARRIER = '100.64.0.1';
const AUTH = 'alerts GET /v2/auth';

/** The verification outcomes counted in `/metrics`. */
async function verifications(gw: TestGateway): Promise<Record<string, number>> {
  const metric = gw.services.registry.getSingleMetric('gateway_auth_verifications_total');
  const values = metric ? (await metric.get()).values : [];
  return Object.fromEntries(values.map((v) => [String(v.labels['outcome']), v.value]));
}

/** Two subscribers of the simulator, as their apps send them. */
function twoSubscribers() {
  const [a, b] = [...sim.alerts.subscribers.values()];
  const clientKey = sim.alerts.demo.clientKey;
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-service-client-key': clientKey });
  return { a: headers(a!.token), b: headers(b!.token) };
}

describe('rate limit behind one address (CGNAT)', () => {
  it("counts each signed-in caller by itself from its first request: A's public reads never make B refused", async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 4, authIdentityTtlMs: 60_000 } });
    const { a, b } = twoSubscribers();
    for (let i = 0; i < 4; i++) expect(await ask(gw, a, CARRIER)).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    expect(await ask(gw, a, CARRIER)).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    // Same address, first request of another subscriber: its own budget.
    for (let i = 0; i < 4; i++) expect(await ask(gw, b, CARRIER)).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    expect(await ask(gw, b, CARRIER)).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    // Nor did either spend the address's budget: an anonymous caller there still has all of it.
    for (let i = 0; i < 4; i++) expect((await ask(gw, {}, CARRIER)).status).toBe(200);
    // Each token verified once (the identity memo), not once per request.
    expect(gw.sim.controls.counts()).toEqual({ [AUTH]: 2 });
    expect(await verifications(gw)).toEqual({ verified: 2 });
  });

  it('1,000 forged tokens from one address share its one budget and cost a bounded, counted number of auth calls', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 100, authIdentityTtlMs: 60_000 } });
    const { a } = twoSubscribers();
    // A subscriber verified before the flood keeps its own budget through it.
    expect((await ask(gw, a, CARRIER)).status).toBe(200);
    gw.sim.controls.resetCounts();
    const statuses: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(gw, bearer(`forged-${batch}-${i}`), CARRIER)));
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(900);
    expect(gw.sim.controls.counts()).toEqual({ [AUTH]: VERIFY_ATTEMPTS_PER_ADDRESS });
    expect(await verifications(gw)).toEqual({ verified: 1, refused: VERIFY_ATTEMPTS_PER_ADDRESS, skipped: 1000 - VERIFY_ATTEMPTS_PER_ADDRESS });
    // A forged token sent again is remembered as refused: no call, still the address's budget.
    gw.sim.controls.resetCounts();
    expect((await ask(gw, bearer('forged-0-0'), CARRIER)).status).toBe(429);
    expect(gw.sim.controls.counts()).toEqual({});
    expect((await ask(gw, a, CARRIER)).status).toBe(200);
  });

  it('asks nothing to count a caller when the identity memo is off (AUTH_IDENTITY_TTL_MS=0)', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 2, authIdentityTtlMs: 0 } });
    const { a } = twoSubscribers();
    for (let i = 0; i < 2; i++) expect((await ask(gw, a, CARRIER)).status).toBe(200);
    expect((await ask(gw, a, CARRIER)).status).toBe(429);
    expect(gw.sim.controls.counts()).toEqual({});
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
    for (const gw of [a, b, a, b]) expect((await ask(gw, bearer('carol'), '192.0.2.40')).status).toBe(200);
    expect(await ask(a, bearer('carol'), '192.0.2.40')).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect(await ask(b, {}, '192.0.2.40')).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect((await ask(b, bearer('dave'), '192.0.2.41')).status).toBe(200);
  });

  it("bounds one address's verification attempts on both replicas together", async () => {
    const config = { rateLimitPerMinute: 1000, authIdentityTtlMs: 60_000, redisUrl };
    const [a, b] = [await gateway({ config }), await gateway({ config })];
    sim.controls.resetCounts();
    for (let i = 0; i < 2 * VERIFY_ATTEMPTS_PER_ADDRESS; i++) await ask(i % 2 ? b : a, bearer(`forged-${i}`), '100.64.0.9');
    expect(sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': VERIFY_ATTEMPTS_PER_ADDRESS });
  });

  it('keeps limiting in process while Redis is away', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const gw = await gateway({ config: { rateLimitPerMinute: 2, redisUrl: unreachable } });
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(429);
  });
});
