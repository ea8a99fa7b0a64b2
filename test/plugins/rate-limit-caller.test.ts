import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { attachGraphQLWs } from '../../src/ws.js';
import { nodeListener } from '../../src/node-http.js';
import { bearer, ask, peer, verify, sim, gateway, useRateLimitGateways } from '../helpers/rate-limit.js';

useRateLimitGateways();

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
