import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import type { BreakerState, RequestInfo } from '../../src/upstream/index.js';
import { lastTrade, postWebhook, SECRET, subscribeEvents } from '../events/helpers.js';
import { startTestGateway, type GraphQLResponse, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';
import { nodeListener } from '../../src/node-http.js';

// A client that goes away abandons the upstream reads made for it alone; writes and shared fetches run on.

const SOL = 'solana:So11111111111111111111111111111111111111112';
const JUP = 'solana:JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const FROM = '2025-11-01T00:00:00Z';
const TO = '2025-11-03T00:00:00Z';
/** Far beyond any wait of these tests: a call that ends sooner was ended by the client's abort, not by its deadline. */
const DEADLINE_MS = 60_000;

interface Harness {
  gw: TestGateway;
  /** Every upstream call as the `onRequest` hook reported it, in the order they ended. */
  calls: RequestInfo[];
  breakerStates: BreakerState[];
  /** POSTs a GraphQL request over a real socket; `signal` cuts the connection. Settles with `'disconnected'` then. */
  post(query: string, options?: { signal?: AbortSignal; headers?: Record<string, string> }): Promise<GraphQLResponse | 'disconnected'>;
  close(): Promise<void>;
}

/** The gateway on a real port (disconnecting is about HTTP), recording every upstream call. */
async function startHarness(options: TestGatewayOptions = {}): Promise<Harness> {
  const calls: RequestInfo[] = [];
  const breakerStates: BreakerState[] = [];
  const gw = await startTestGateway({
    ...options,
    config: { upstreamTimeoutMs: DEADLINE_MS, assetsTimeoutMs: DEADLINE_MS, ...options.config },
    upstream: {
      onRequest: (info) => calls.push(info),
      onBreakerStateChange: (_service, state) => breakerStates.push(state),
      ...options.upstream,
    },
  });
  const server = createServer(nodeListener(gw.app.yoga));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

  return {
    gw,
    calls,
    breakerStates,
    async post(query, { signal, headers } = {}) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
          body: JSON.stringify({ query }),
          signal: signal ?? null,
        });
        return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse, 'status'>) };
      } catch (error) {
        if (signal?.aborted) return 'disconnected';
        throw error;
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gw.close();
    },
  };
}

const routeOf = (target: Target): string => target.route!.replace(/:id\b/, '{id}').replace(/:appId\b/, '{appId}');
const callsTo = (h: Harness, target: Target) => h.calls.filter((c) => c.service === target.service && c.route === routeOf(target));
const hits = (h: Harness, target: Target) => h.gw.sim.controls.count(target.service, target.route);

/** Sends `query`, waits until the simulator has seen `calls` requests on `target`, then disconnects. */
async function disconnectDuring(h: Harness, target: Target, query: string, calls: number, headers?: Record<string, string>) {
  const client = new AbortController();
  const answer = h.post(query, { signal: client.signal, ...(headers ? { headers } : {}) });
  await vi.waitFor(() => expect(hits(h, target)).toBe(calls));
  client.abort();
  expect(await answer).toBe('disconnected');
}

describe('a client that disconnects', () => {
  let h: Harness;
  let wallet: string;
  let marketId: string;

  beforeAll(async () => {
    h = await startHarness({ config: { webhookSecret: SECRET } });
    wallet = h.gw.sim.world.demoWallets[0]!;
    marketId = h.gw.sim.world.markets.find((m) => m.type === 'lending')!.id;
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.gw.sim.controls.reset();
    h.gw.sim.controls.setRandom(Math.random);
    h.calls.length = 0;
  });

  const viewer = () => h.gw.viewerHeaders;
  // `answered`: calls of the route let through before the hang (the rest hang until aborted).
  const cases: { name: string; target: Target; query: () => string; answered?: number; aborted: number; subscriber?: boolean }[] = [
    {
      name: 'positions (byWallet)',
      target: { service: 'markets', route: 'GET /v0/positions/owners' },
      query: () => `{ wallet(address: "${wallet}") { totalValueUsd } }`,
      aborted: 1,
    },
    {
      name: 'wallet value history (valueHistory)',
      target: { service: 'markets', route: 'GET /v0/positions/history' },
      query: () => `{ wallet(address: "${wallet}") { valueHistory(from: "${FROM}", to: "${TO}") { valueUsd } } }`,
      aborted: 1,
    },
    {
      name: 'market APY history (apyHistory)',
      target: { service: 'markets', route: 'GET /v0/markets/history' },
      query: () => `{ market(id: "${marketId}") { apyHistory(from: "${FROM}", to: "${TO}") { depositApy } } }`,
      aborted: 1,
    },
    {
      name: 'asset price history (priceHistory)',
      target: { service: 'assets', route: 'GET /v0/assets/:id/history' },
      query: () => `{ asset(id: "${SOL}") { priceHistory(from: "${FROM}", to: "${TO}") { totalCount } } }`,
      aborted: 1,
    },
    { name: 'alerts identity', target: { service: 'alerts', route: 'GET /v2/auth' }, query: () => '{ viewer { walletAddress } }', aborted: 1, subscriber: true },
    { name: 'alerts channels', target: { service: 'alerts', route: 'GET /v2/channels' }, query: () => '{ viewer { channels { id } } }', aborted: 1, subscriber: true },
    { name: 'alerts apps', target: { service: 'alerts', route: 'GET /v2/apps' }, query: () => '{ viewer { apps { appId } } }', aborted: 1, subscriber: true },
    {
      name: 'alerts inbox summary',
      target: { service: 'alerts', route: 'GET /v2/history/summary' },
      query: () => '{ viewer { unreadCount } }',
      aborted: 1,
      subscriber: true,
    },
    {
      name: 'alerts inbox page',
      target: { service: 'alerts', route: 'GET /v2/history' },
      query: () => '{ viewer { inbox(first: 5) { edges { node { id } } } } }',
      aborted: 1,
      subscriber: true,
    },
    {
      // The page of 5 answers; the count's walk then asks for its own first page of 20.
      name: 'alerts inboxCount walk',
      target: { service: 'alerts', route: 'GET /v2/history' },
      query: () => '{ viewer { inbox(first: 5) { totalCount } } }',
      answered: 1,
      aborted: 1,
      subscriber: true,
    },
  ];

  it.each(cases)('aborts the upstream read of $name at once, as ABORTED, without a retry', async ({ target, query, answered = 0, aborted, subscriber }) => {
    // The fault's draws: 1 (let through) for the first `answered` calls, then 0 (hang).
    let draws = 0;
    h.gw.sim.controls.setRandom(() => (draws++ < answered ? 1 : 0));
    h.gw.sim.controls.setFault(target, { hang: true, rate: 0.5 });
    await disconnectDuring(h, target, query(), answered + aborted, subscriber ? viewer() : undefined);

    // The hanging calls end only through the client's abort: their deadline is a minute away.
    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(answered + aborted));
    const outcomes = callsTo(h, target).map((c) => c.errorCode ?? c.status);
    expect(outcomes).toEqual([...Array<number>(answered).fill(200), ...Array<string>(aborted).fill('ABORTED')]);
    for (const call of callsTo(h, target).slice(answered)) {
      expect(call).toMatchObject({ errorKind: 'UNAVAILABLE', errorCode: 'ABORTED', attempts: 1 });
      expect(call.status).toBeUndefined();
    }
    expect(hits(h, target)).toBe(answered + aborted);
  });

  it('aborts the reads of an event when its subscriber goes away', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    const { stream, first } = await subscribeEvents(
      h.gw,
      'subscription { events { eventId ... on TokenLastTradePriceChangeEvent { wallet { totalValueUsd } } } }',
    );
    h.gw.sim.controls.setFault(target, { hang: true });
    await postWebhook(h.gw, { events: [lastTrade('left-1', wallet)] });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await stream.close();
    await first.catch(() => null);

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    expect(hits(h, target)).toBe(1);
  });

  it('ends only its own wait: a second request for the same wallet gets its positions from the one call', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    // Two operations (not one run twice, which would share one execution): their identical reads share one call.
    const stays = h.post(`{ wallet(address: "${wallet}") { totalValueUsd positions(first: 1) { totalCount } } }`);
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await disconnectDuring(h, target, `{ wallet(address: "${wallet}") { positions(first: 2) { totalCount } } }`, 1);
    const answer = (await stays) as GraphQLResponse;

    expect(answer.errors).toBeUndefined();
    expect(answer.data!['wallet'].positions.totalCount).toBeGreaterThan(0);
    // The request that left stopped waiting; the call it shared went on for the one that stayed.
    expect(hits(h, target)).toBe(1);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual([200]);
  });

  it('ends a shared read once every request waiting on it has left', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    const first = new AbortController();
    const one = h.post(`{ wallet(address: "${wallet}") { totalValueUsd } }`, { signal: first.signal });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await disconnectDuring(h, target, `{ wallet(address: "${wallet}") { positions(first: 2) { totalCount } } }`, 1);
    first.abort();
    expect(await one).toBe('disconnected');
    await vi.waitFor(() => expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual(['ABORTED']));
    expect(hits(h, target)).toBe(1);
  });

  it('leaves a shared asset fetch running: the request that stays gets the asset from the one call', async () => {
    const target: Target = { service: 'assets', route: 'GET /v0/assets/:id' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    // An asset no other test of this gateway loads: the shared cache holds no copy of it.
    const query = `{ asset(id: "${JUP}") { assetId symbol metadataSource } }`;

    const leaving = new AbortController();
    const left = h.post(query, { signal: leaving.signal });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    // The second request (another operation: the same one would share the first's execution) joins the
    // fetch in flight in the shared cache.
    const stays = h.post(query.replace('symbol', 'symbol __typename'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    leaving.abort();
    expect(await left).toBe('disconnected');

    const answer = (await stays) as GraphQLResponse;
    expect(answer.errors).toBeUndefined();
    expect(answer.data!['asset']).toEqual({ assetId: JUP, symbol: 'JUP', __typename: 'Asset', metadataSource: 'PRIMARY' });
    expect(hits(h, target)).toBe(1);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual([200]);
  });

  it('many concurrent reads of one request share one listener on its signal (no MaxListenersExceededWarning) and all abort', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setFault(target, { hang: true });
    // POSITIONS_BATCH_SIZE is 1: one call per wallet, 25 at once. In memory, as over WebSocket, the
    // request's signal is Node's own AbortSignal, which warns past 10 listeners.
    const wallets = h.gw.sim.world.wallets.slice(0, 25).map((w) => `"${w.address}"`);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const client = new AbortController();
      const answer = Promise.resolve(h.gw.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ wallets(addresses: [${wallets.join(', ')}]) { totalValueUsd } }` }),
        signal: client.signal,
      }));
      await vi.waitFor(() => expect(hits(h, target)).toBe(25));
      client.abort();
      await answer.catch(() => undefined);
      await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(25));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(callsTo(h, target).filter((c) => c.errorCode === 'ABORTED')).toHaveLength(25);
    expect(warnings).toEqual([]);
  });
});

describe('a client that disconnects during a mutation', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.gw.sim.controls.reset();
    h.gw.sim.alerts.reset();
    h.calls.length = 0;
  });

  it('does not abort the write: the channel is created', async () => {
    const target: Target = { service: 'alerts', route: 'POST /v2/channel/email/prepare' };
    const subscriber = [...h.gw.sim.alerts.subscribers.values()].find((s) => !s.channels.has('EMAIL'))!;
    const headers = { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': h.gw.sim.alerts.demo.clientKey };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });

    await disconnectDuring(
      h,
      target,
      'mutation { prepareEmailChannel(input: { email: "left@example.com" }) { channel { id } userErrors { code } } }',
      1,
      headers,
    );

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ status: 200, attempts: 1 });
    expect(callsTo(h, target)[0]!.errorCode).toBeUndefined();
    expect(subscriber.channels.get('EMAIL')).toMatchObject({ value: 'left@example.com', verified: false });
    expect(hits(h, target)).toBe(1);
  });

  it('does not abort a send: the alerts service records it', async () => {
    const target: Target = { service: 'alerts', route: 'POST /v2/:appId/send' };
    const { demo } = h.gw.sim.alerts;
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    const mutation = `mutation { sendNotification(input: {
      appId: "${demo.appId}", channels: [IN_APP], title: "Rate change", body: "APY moved.",
      recipient: { walletAddress: "${demo.walletAddress}" }
    }) { accepted } }`;

    await disconnectDuring(h, target, mutation, 1, { 'x-service-api-key': demo.apiKey });

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ status: 202, attempts: 1 });
    expect(callsTo(h, target)[0]!.errorCode).toBeUndefined();
    expect(h.gw.sim.alerts.deliveries).toHaveLength(1);
    expect(hits(h, target)).toBe(1);
  });
});

describe('caller aborts and the circuit breaker', () => {
  let h: Harness;
  const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };

  beforeAll(async () => {
    // Opens once more than 10 % of the calls of the last minute failed (from the third call on): a breaker
    // that counted the aborts would open at the first.
    h = await startHarness({
      upstream: { breaker: { volumeThreshold: 3, errorThresholdPercentage: 10, resetTimeoutMs: 60_000, rollingCountTimeoutMs: 60_000 } },
    });
  });
  afterAll(() => h.close());

  it('stays closed after 12 caller aborts, and still opens on upstream failures', async () => {
    const wallet = h.gw.sim.world.demoWallets[0]!;
    const query = `{ wallet(address: "${wallet}") { totalValueUsd } }`;
    // The markets breaker has already counted the market index's 4 listing pages, all answered.
    expect(h.calls.map((c) => `${c.route} ${c.status}`)).toEqual(Array(4).fill('GET /v0/markets 200'));
    h.gw.sim.controls.setFault(target, { hang: true });
    for (let n = 1; n <= 12; n++) await disconnectDuring(h, target, query, n);
    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(12));
    expect(callsTo(h, target).filter((c) => c.errorCode === 'ABORTED')).toHaveLength(12);

    h.gw.sim.controls.setFault(target, null);
    const answer = (await h.post(query)) as GraphQLResponse;
    expect(answer.errors).toBeUndefined();
    expect(hits(h, target)).toBe(13);
    expect(h.breakerStates).toEqual([]);

    // The same breaker opens on the upstream's own failures: 1 of 18 calls is 5.6 %, 2 of 19 pass 10 %; the third request makes no call.
    h.gw.sim.controls.setFault(target, { status: 503 });
    for (let n = 0; n < 3; n++) {
      expect(((await h.post(query)) as GraphQLResponse).errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    }
    expect(h.breakerStates).toEqual(['open']);
    expect(hits(h, target)).toBe(15);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status).slice(12)).toEqual([200, 503, 503, 'EOPENBREAKER']);
    expect(h.calls).toHaveLength(4 + 16);
  });
});
