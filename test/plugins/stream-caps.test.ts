import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { attachGraphQLWs, CLOSE_TOO_MANY_CONNECTIONS } from '../../src/ws.js';
import { SECRET } from '../events/helpers.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { nodeListener } from '../../src/node-http.js';

const EVENTS = 'subscription { events { eventId } }';
const openStreams = async (gw: TestGateway) => (await gw.services.registry.getSingleMetric('gateway_streams_open')!.get()).values[0]?.value;

/**
 * An SSE subscription as a caller named by `token` (anonymous without one), from a client address of that
 * caller's own (unverified tokens count by address, as the rate limit counts them); `end` closes it as a
 * client going away would.
 */
async function stream(gw: TestGateway, token?: string, address?: string) {
  const controller = new AbortController();
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    signal: controller.signal,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(token ? { authorization: `Bearer ${token}`, 'x-service-client-key': 'client-key' } : {}),
    },
    body: JSON.stringify({ query: EVENTS }),
  }, { req: { socket: { remoteAddress: address ?? `198.51.100.${[...(token ?? '')].reduce((n, c) => (n + c.charCodeAt(0)) % 250, 1)}` }, headers: {} } });
  const reader = response.status === 200 ? response.body!.getReader() : null;
  void reader?.read().catch(() => {});
  return Object.assign(response, {
    end: async () => {
      controller.abort();
      await reader?.cancel().catch(() => {});
    },
  });
}

describe('caps on open streams', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ config: { webhookSecret: SECRET, maxStreamsPerClient: 3, maxStreams: 5 } });
  });
  afterAll(() => gw?.close());

  it('reads MAX_STREAMS_PER_CLIENT and MAX_STREAMS, with defaults', () => {
    expect(loadConfig({})).toMatchObject({ maxStreamsPerClient: 100, maxStreams: 2000 });
    expect(loadConfig({ MAX_STREAMS_PER_CLIENT: '7', MAX_STREAMS: '70' })).toMatchObject({ maxStreamsPerClient: 7, maxStreams: 70 });
    expect(() => loadConfig({ MAX_STREAMS: '0' })).toThrow(/MAX_STREAMS/);
  });

  it('refuses a caller its fourth SSE stream with 429 and Retry-After, then the process its sixth, and frees a slot when a stream ends', async () => {
    const held: Awaited<ReturnType<typeof stream>>[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await stream(gw, 'alice');
      expect(response.status).toBe(200);
      held.push(response);
    }
    const refused = await stream(gw, 'alice');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.text()).toContain('TOO_MANY_STREAMS');
    expect(await openStreams(gw)).toBe(3);

    // Another caller has streams of its own, up to the process's cap.
    for (let i = 0; i < 2; i++) {
      const response = await stream(gw, 'bob');
      expect(response.status).toBe(200);
      held.push(response);
    }
    const full = await stream(gw, 'carol');
    expect(full.status).toBe(429);
    expect(await full.text()).toMatch(/most streams it allows \(5\)/);
    expect(await openStreams(gw)).toBe(5);

    // A stream that ends (the client goes away) gives its slot back.
    await held.shift()!.end();
    await vi.waitFor(async () => expect(await openStreams(gw)).toBe(4));
    const again = await stream(gw, 'alice');
    expect(again.status).toBe(200);
    held.push(again);

    for (const response of held) await response.end();
    await vi.waitFor(async () => expect(await openStreams(gw)).toBe(0));
    const refusals = (await gw.services.registry.getSingleMetric('gateway_streams_refused_total')!.get()).values;
    expect(Object.fromEntries(refusals.map((v) => [v.labels['scope'], v.value]))).toEqual({ client: 1, process: 1 });
  });

  it('counts WebSocket subscriptions with SSE ones, refuses the operation past the cap, and closes a connection past the process cap with 4429', async () => {
    const server = createServer(nodeListener(gw.app.yoga));
    const close = attachGraphQLWs(server, gw.app.yoga, { production: false, maxSockets: 2 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = `ws://127.0.0.1:${port}/graphql`;
    // One caller: an unverified token counts by address, and the WebSocket clients connect from loopback.
    const sse = await stream(gw, 'dave', '127.0.0.1');
    expect(sse.status).toBe(200);
    const clients = [0, 1].map(() =>
      createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, connectionParams: { authorization: 'Bearer dave', 'x-service-client-key': 'client-key' } }),
    );
    try {
      const outcomes: unknown[] = [];
      const subscribe = (client: (typeof clients)[number]) =>
        client.subscribe({ query: EVENTS }, { next: (value) => outcomes.push(value), error: (error) => outcomes.push(error), complete: () => {} });
      subscribe(clients[0]!);
      subscribe(clients[1]!);
      await vi.waitFor(async () => expect(await openStreams(gw)).toBe(3));
      subscribe(clients[1]!);
      await vi.waitFor(() => expect(outcomes).toHaveLength(1));
      expect(JSON.stringify(outcomes[0])).toContain('TOO_MANY_STREAMS');
      expect(await openStreams(gw)).toBe(3);

      // A third connection: closed at once with 4429.
      const third = new WebSocket(url, 'graphql-transport-ws');
      const [code] = await new Promise<[number]>((resolve) => third.once('close', (c) => resolve([c])));
      expect(code).toBe(CLOSE_TOO_MANY_CONNECTIONS);
    } finally {
      for (const client of clients) await client.dispose();
      await sse.end();
      await close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await vi.waitFor(async () => expect(await openStreams(gw)).toBe(0));
  });
});
