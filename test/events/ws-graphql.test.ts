import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_OPERATIONS_PER_SOCKET } from '../../src/ws.js';
import type { TestGateway } from '../helpers/gateway.js';
import { postWebhook, priceChange, SOL, startEventsGateway, trending } from './helpers.js';
import { type Listening, listen, clients, connect, warningsDuring, run } from '../helpers/ws-sockets.js';

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
