import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { attachGraphQLWs, MAX_OPERATIONS_PER_SOCKET } from '../../src/ws.js';
import type { RequestInfo } from '../../src/upstream/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { postWebhook, priceChange, SOL, startEventsGateway, trending } from './helpers.js';
import { nodeListener } from '../../src/node-http.js';

interface Listening {
  url: string;
  close(): Promise<void>;
}

/** The gateway on a real port, HTTP and WebSocket together, as `src/lifecycle.ts` serves it. */
async function listen(gw: TestGateway, production = false): Promise<Listening> {
  const server: Server = createServer(nodeListener(gw.app.yoga));
  const closeWs = attachGraphQLWs(server, gw.app.yoga, { production });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const clients: Client[] = [];

function connect(url: string, connectionParams?: Record<string, unknown>): Client {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  clients.push(client);
  return client;
}

/** The names of the process warnings emitted while `fn` runs. */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    await fn();
    // Node emits a warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

/** A graphql-transport-ws socket driven message by message, as a client that does not follow graphql-ws's client would. */
async function rawSocket(url: string) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const messages: { id?: string; type: string; payload?: unknown }[] = [];
  ws.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString('utf8'))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'connection_init' }));
  await vi.waitFor(() => expect(messages.some((m) => m.type === 'connection_ack')).toBe(true));
  return {
    send: (message: object) => ws.send(JSON.stringify(message)),
    /** The first `next` or `error` message for `id`. */
    answer: (id: string) =>
      vi.waitFor(() => {
        const found = messages.find((m) => m.id === id && (m.type === 'next' || m.type === 'error'));
        expect(found).toBeDefined();
        return found!;
      }),
    close: () => ws.close(),
  };
}

type Answer = { data?: any; errors?: readonly { message: string; extensions?: Record<string, any> }[] };

/** One query's answer: its result, or the errors the server answered the operation with. */
function run(client: Client, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let result: Answer = {};
    client.subscribe(
      { query, variables },
      {
        next: (value) => (result = value),
        error: (error) => (Array.isArray(error) ? resolve({ errors: error }) : reject(error instanceof Error ? error : new Error('the operation failed', { cause: error }))),
        complete: () => resolve(result),
      },
    );
  });
}

describe('GraphQL over WebSocket (graphql-ws) on /graphql', () => {
  let gw: TestGateway;
  let server: Listening;

  beforeAll(async () => {
    gw = await startEventsGateway();
    server = await listen(gw);
  });
  afterAll(async () => {
    await Promise.all(clients.map(async (client) => {
      await client.dispose();
    }));
    await server?.close();
    await gw?.close();
  });

  it('streams webhook events to a subscription, and stops listening when the client completes it', async () => {
    const before = gw.services.events.subscriptions;
    const events = connect(server.url).iterate<{ events: any }>({
      query: 'subscription($kinds: [EventKind!]) { events(kinds: $kinds) { __typename eventId kind symbol asset { assetId symbol } } }',
      variables: { kinds: ['TOKEN_PRICE_CHANGE'] },
    });
    const first = events.next();
    await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(before + 1));

    expect(await postWebhook(gw, { events: [trending('ws-skipped'), priceChange('ws-1')] })).toMatchObject({ status: 200 });
    expect((await first).value).toEqual({
      data: {
        events: {
          __typename: 'TokenPriceChangeEvent',
          eventId: 'ws-1',
          kind: 'TOKEN_PRICE_CHANGE',
          symbol: 'SOL',
          asset: { assetId: `solana:${SOL}`, symbol: 'SOL' },
        },
      },
    });

    await events.return?.();
    await expect.poll(() => gw.services.events.subscriptions).toBe(before);
  });

  it('reads the viewer from connectionParams, whatever their case, as from headers over HTTP', async () => {
    const { demo } = gw.sim.alerts;
    const query = '{ viewer { walletAddress } }';
    const capitalized = connect(server.url, { Authorization: `Bearer ${demo.token}`, 'X-Service-Client-Key': demo.clientKey });
    expect(await run(capitalized, query)).toEqual({ data: { viewer: { walletAddress: demo.walletAddress } } });
    expect(await run(connect(server.url, gw.viewerHeaders), query)).toEqual({ data: { viewer: { walletAddress: demo.walletAddress } } });
  });

  it('answers without credentials, or with unusable ones, as HTTP does: viewer null with UNAUTHENTICATED', async () => {
    const query = '{ viewer { walletAddress } }';
    const overHttp = await gw.execute(query);
    expect(overHttp.data).toEqual({ viewer: null });
    expect(overHttp.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');

    for (const params of [undefined, {}, { authorization: 42 }, { authorization: 'Bearer a\nb' }]) {
      const answer = await run(connect(server.url, params), query);
      expect(answer.data).toEqual({ viewer: null });
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    }
  });

  it('answers a broken operation with errors and keeps the socket open for the next one', async () => {
    const client = connect(server.url);
    let closed = 0;
    client.on('closed', () => closed++);
    expect((await run(client, '{ viewer {')).errors?.[0]?.message).toMatch(/Syntax Error/);
    expect((await run(client, '{ nope }')).errors?.[0]?.message).toMatch(/Cannot query field "nope"/);
    expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    expect(closed).toBe(0);
  });

  it('runs queries whose resolvers pass the request signal upstream', async () => {
    const answer = await run(connect(server.url), '{ markets(first: 2) { edges { node { marketId } } } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data.markets.edges).toHaveLength(2);
  });

  it('runs mutations, as HTTP POST does', async () => {
    const client = connect(server.url, gw.viewerHeaders);
    const answer = await run(client, 'mutation { markNotificationsRead { userErrors { code } viewer { unreadCount } } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ markNotificationsRead: { userErrors: [], viewer: { unreadCount: 0 } } });
  });

  it('allows introspection outside production', async () => {
    expect(await run(connect(server.url), '{ __schema { queryType { name } } }')).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('applies the production rules over WebSocket too: no introspection, armor limits', async () => {
    const prod = await startEventsGateway({ sim: gw.sim, config: { production: true } });
    const prodServer = await listen(prod, true);
    try {
      const client = connect(prodServer.url);
      const introspection = await run(client, '{ __schema { queryType { name } } }');
      expect(introspection.data).toBeUndefined();
      expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
      // The introspection rule comes in addition to the standard ones, not instead of them.
      expect((await run(client, '{ nope }')).errors?.[0]?.message).toMatch(/Cannot query field/);

      const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: viewer { walletAddress }`).join(' ');
      const tooMany = await run(client, `{ ${aliases} }`);
      expect(tooMany.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_COMPLEX');
      expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await prodServer.close();
      await prod.close();
    }
  });

  it(`runs at most ${MAX_OPERATIONS_PER_SOCKET} operations per socket: the next is refused until one completes`, async () => {
    const warnings = await warningsDuring(async () => {
      const client = connect(server.url);
      const before = gw.services.events.subscriptions;
      const stops = Array.from({ length: MAX_OPERATIONS_PER_SOCKET }, () =>
        client.subscribe({ query: 'subscription { events { eventId } }' }, { next: () => {}, error: () => {}, complete: () => {} }),
      );
      await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(before + MAX_OPERATIONS_PER_SOCKET));

      const refused = await run(client, '{ __typename }');
      expect(refused.data).toBeUndefined();
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: null });
      expect(refused.errors?.[0]?.message).toMatch(/complete one/);
      // Another socket has its own allowance.
      expect(await run(connect(server.url), '{ __typename }')).toEqual({ data: { __typename: 'Query' } });

      stops[0]!();
      await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(before + MAX_OPERATIONS_PER_SOCKET - 1));
      expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
      for (const stop of stops) stop();
      await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(before));
    });
    // A hundred listeners on the events topic are normal here, not a leak to warn about.
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('on shutdown closes the sockets with 1001 Going Away, ending their subscriptions', async () => {
    const other = await startEventsGateway({ sim: gw.sim });
    const otherServer = await listen(other);
    try {
      const client = connect(otherServer.url);
      const ended = new Promise<unknown>((resolve) =>
        client.subscribe({ query: 'subscription { events { eventId } }' }, { next: () => {}, error: resolve, complete: () => resolve('complete') }),
      );
      await vi.waitFor(() => expect(other.services.events.subscriptions).toBe(1));

      await otherServer.close();
      // Not a completion: 1001 is a code on which graphql-ws clients reconnect and subscribe again.
      expect(await ended).toMatchObject({ code: 1001 });
      await expect.poll(() => other.services.events.subscriptions).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('GraphQL over WebSocket: operations that are still running', () => {
  const SOL_ID = `solana:${SOL}`;
  const positions = { service: 'markets', route: 'GET /v0/positions/owners' } as const;
  const asset = { service: 'assets', route: 'GET /v0/assets/:id' } as const;
  let gw: TestGateway;
  let server: Listening;
  const calls: RequestInfo[] = [];
  const ended = (route: string) => calls.filter((call) => call.route === route);

  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    // Deadlines far beyond these tests: a call that ends was ended by an abort.
    gw = await startEventsGateway({
      sim,
      config: { upstreamTimeoutMs: 60_000, assetsTimeoutMs: 60_000 },
      upstream: { onRequest: (info) => calls.push(info) },
    });
    server = await listen(gw);
  });
  afterAll(async () => {
    await server?.close();
    // The simulator cuts the calls still hanging; then the upstream pool can close.
    await sim?.close();
    await gw?.close();
  });

  it("aborts a query's upstream reads when the client completes it, and the rest when the socket closes", async () => {
    const wallet = gw.sim.world.demoWallets[0]!;
    gw.sim.controls.setFault(positions, { hang: true });
    const socket = await rawSocket(server.url);
    const query = `{ wallet(address: "${wallet}") { totalValueUsd } }`;

    socket.send({ id: 'a', type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(positions.service, positions.route)).toBe(1));
    socket.send({ id: 'a', type: 'complete' });
    await vi.waitFor(() => expect(ended('GET /v0/positions/owners')).toHaveLength(1));
    expect(ended('GET /v0/positions/owners')[0]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    // The socket stays open for the next operation.
    socket.send({ id: 'b', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await socket.answer('b')).toMatchObject({ type: 'next', payload: { data: { __typename: 'Query' } } });

    socket.send({ id: 'c', type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(positions.service, positions.route)).toBe(2));
    socket.close();
    await vi.waitFor(() => expect(ended('GET /v0/positions/owners')).toHaveLength(2));
    expect(ended('GET /v0/positions/owners')[1]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    gw.sim.controls.reset();
  });

  it('holds nothing per finished operation on a long-lived socket: 1,600 queries, no listener-leak warning', async () => {
    const warnings = await warningsDuring(async () => {
      const socket = await rawSocket(server.url);
      // Node warns once a signal holds more than 1,500 abort listeners: a Request per operation on the
      // socket's own signal added one each, released only when garbage-collected.
      for (let batch = 0; batch < 32; batch++) {
        const ids = Array.from({ length: 50 }, (_, i) => `t${batch}-${i}`);
        for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: '{ __typename }' } });
        for (const answer of await Promise.all(ids.map((id) => socket.answer(id)))) expect(answer.type).toBe('next');
      }
      socket.close();
    });
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('does not count operations refused before they run: 2 × the cap of ambiguous documents, then a query runs', async () => {
    const socket = await rawSocket(server.url);
    const ambiguous = 'query A { __typename } query B { __typename }';
    // In batches: operations being prepared count too, and one chunk of messages arrives all at once.
    for (let batch = 0; batch < 4; batch++) {
      const ids = Array.from({ length: MAX_OPERATIONS_PER_SOCKET / 2 }, (_, i) => `x${batch}-${i}`);
      for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: ambiguous } });
      for (const answer of await Promise.all(ids.map((id) => socket.answer(id)))) {
        expect(answer).toMatchObject({ type: 'error', payload: [{ extensions: { code: expect.stringMatching(/BAD_USER_INPUT|OPERATION_RESOLUTION_FAILURE/) } }] });
      }
    }
    socket.send({ id: 'named', type: 'subscribe', payload: { query: ambiguous, operationName: 'Missing' } });
    expect(await socket.answer('named')).toMatchObject({ type: 'error', payload: [{ extensions: { code: expect.stringMatching(/BAD_USER_INPUT|OPERATION_RESOLUTION_FAILURE/) } }] });
    socket.send({ id: 'ok', type: 'subscribe', payload: { query: ambiguous, operationName: 'B' } });
    expect(await socket.answer('ok')).toMatchObject({ type: 'next', payload: { data: { __typename: 'Query' } } });
    socket.close();
  });

  it('counts an operation the client completed until its execution ends: subscribe-then-complete does not lift the cap', async () => {
    // The asset cache's fetch is shared with other requests: a client's abort does not end it.
    gw.sim.controls.setFault(asset, { hang: true });
    const socket = await rawSocket(server.url);
    const query = `{ asset(id: "${SOL_ID}") { symbol } }`;
    for (let i = 0; i < MAX_OPERATIONS_PER_SOCKET; i++) socket.send({ id: `q${i}`, type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(asset.service, asset.route)).toBe(1));
    for (let i = 0; i < MAX_OPERATIONS_PER_SOCKET; i++) socket.send({ id: `q${i}`, type: 'complete' });

    // Messages are handled in order: the completes came first, and the 100 still run.
    socket.send({ id: 'next', type: 'subscribe', payload: { query: '{ __typename }' } });
    const refused = await socket.answer('next');
    expect(refused).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'RATE_LIMITED' } }] });
    // Reusing the id of an operation still running is refused too: one entry must not stand for two.
    socket.send({ id: 'q0', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await socket.answer('q0')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(gw.sim.controls.count(asset.service, asset.route)).toBe(1);
    socket.close();
  });
});
