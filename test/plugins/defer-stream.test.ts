import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { attachGraphQLWs } from '../../src/ws.js';
import { startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';
import { nodeListener } from '../../src/node-http.js';

interface Part {
  data?: any;
  incremental?: { data?: any; items?: any[]; path: (string | number)[]; errors?: any[] }[];
  errors?: any[];
  hasNext?: boolean;
}

/** Reads a multipart/mixed GraphQL response part by part, as a client would while it arrives. */
async function* parts(response: Response): AsyncGenerator<Part> {
  const boundary = /boundary="?([^";]+)"?/.exec(response.headers.get('content-type') ?? '')?.[1] ?? '-';
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf(`\r\n--${boundary}`)) !== -1) {
      const chunk = buffer.slice(0, end);
      buffer = buffer.slice(end + boundary.length + 4);
      const body = chunk.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim();
      if (body) yield JSON.parse(body) as Part;
    }
  }
}

describe('@defer and @stream', () => {
  let gw: TestGateway;
  const historyRoute = { service: 'markets', route: 'GET /v0/positions/history' } as const;
  const wallet = () => gw.sim.world.demoWallets[0]!;

  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  const post = (query: string, variables: Record<string, unknown>) =>
    gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query, variables }),
    });

  it('sends the screen at once and a slow deferred part after it', async () => {
    // The history never answers: the first part must not wait for it, and the deferred part arrives
    // (with the field's error) once the upstream deadline has passed.
    const slow = await startTestGateway({ sim: gw.sim, config: { upstreamTimeoutMs: 300 } });
    gw.sim.controls.setFault(historyRoute, { hang: true });
    try {
      const response = await slow.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
        body: JSON.stringify({ query: 
        `query($address: String!, $from: DateTime!) {
          wallet(address: $address) {
            address
            totalValueUsd
            ... @defer(label: "history") { valueHistory(from: $from, resolution: ONE_DAY) { timestamp valueUsd } }
          }
        }`,
        variables: { address: wallet(), from: new Date(Date.now() - 3 * 86_400_000).toISOString() } }),
      });
      expect(response.headers.get('content-type')).toMatch(/multipart\/mixed/);
      const stream = parts(response);

      const first = (await stream.next()).value as Part;
      expect(first.hasNext).toBe(true);
      expect(first.data.wallet.address).toBe(wallet());
      expect(typeof first.data.wallet.totalValueUsd).toBe('number');
      expect(first.data.wallet).not.toHaveProperty('valueHistory');

      const rest: Part[] = [];
      for await (const part of stream) rest.push(part);
      const deferred = rest.flatMap((p) => p.incremental ?? []);
      expect(deferred).toHaveLength(1);
      expect(deferred[0]!.path).toEqual(['wallet']);
      // The deferred part's error is masked like any other: its public code, not the upstream's message.
      expect(deferred[0]!.errors?.[0]).toMatchObject({ path: ['wallet', 'valueHistory'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
      expect(JSON.stringify(deferred[0]!.errors)).not.toMatch(/ETIMEDOUT|upstream failed/);
      expect(rest.at(-1)!.hasNext).toBe(false);
    } finally {
      gw.sim.controls.setFault(historyRoute, null);
      await slow.close();
    }
  });

  it('sends the first part while the deferred upstream call still hangs', async () => {
    // A deadline a minute away: a gateway that waited for the deferred field would not answer in the test's time.
    const waiting = await startTestGateway({ sim: gw.sim, config: { upstreamTimeoutMs: 60_000 } });
    gw.sim.controls.setFault(historyRoute, { hang: true });
    try {
      const response = await waiting.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
        body: JSON.stringify({
          query: `query($address: String!, $from: DateTime!) {
            wallet(address: $address) { totalValueUsd ... @defer { valueHistory(from: $from, resolution: ONE_DAY) { valueUsd } } }
          }`,
          variables: { address: wallet(), from: new Date(Date.now() - 3 * 86_400_000).toISOString() },
        }),
      });
      const first = (await parts(response).next()).value as Part;
      expect(first).toMatchObject({ data: { wallet: { totalValueUsd: expect.any(Number) } }, hasNext: true });
      expect(first.data.wallet).not.toHaveProperty('valueHistory');
      await response.body?.cancel();
    } finally {
      gw.sim.controls.setFault(historyRoute, null);
      await waiting.close();
    }
  });

  it('streams a positions list: the first items come first, the rest after', async () => {
    const response = await post(
      `query($address: String!) {
        wallet(address: $address) {
          positions(first: 10) { totalCount edges @stream(initialCount: 2) { node { positionId } } }
        }
      }`,
      { address: wallet() },
    );
    const all: Part[] = [];
    for await (const part of parts(response)) all.push(part);
    const [first, ...rest] = all;
    const { totalCount, edges } = first!.data.wallet.positions;
    expect(edges).toHaveLength(2);
    const streamed = rest.flatMap((p) => p.incremental ?? []).flatMap((i) => i.items ?? []);
    expect(streamed).toHaveLength(Math.min(10, totalCount) - 2);
    const ids = [...edges, ...streamed].map((e: any) => e.node.positionId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('counts deferred work against the operation call budget', async () => {
    const small = await startTestGateway({ sim: gw.sim, config: { upstreamCallBudget: 10 } });
    try {
      gw.sim.controls.resetCounts();
      const ids = gw.sim.world.wallets.slice(0, 12).map((w) => w.address);
      const response = await small.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
        body: JSON.stringify({
          query: `query($a: [String!]!) { markets(first: 1) { edges { node { marketId } } } ... @defer { wallets(addresses: $a) { totalValueUsd } } }`,
          variables: { a: ids },
        }),
      });
      const all: Part[] = [];
      for await (const part of parts(response)) all.push(part);
      const errors = all.flatMap((p) => [...(p.errors ?? []), ...(p.incremental ?? []).flatMap((i) => i.errors ?? [])]);
      expect(errors.some((e) => e.extensions?.code === 'QUERY_TOO_COMPLEX')).toBe(true);
      // The budget of 10 upstream calls is spent exactly, deferred calls included, and no call is made past it.
      expect(totalCalls(gw)).toBe(10);
    } finally {
      await small.close();
    }
  });

  const deferredValue = `query($address: String!) { wallet(address: $address) { address ... @defer { totalValueUsd } } }`;

  it('delivers deferred parts over server-sent events', async () => {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: deferredValue, variables: { address: wallet() } }),
    });
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
      .map((line) => JSON.parse(line.slice('data: '.length)) as Part);
    expect(events[0]).toMatchObject({ data: { wallet: { address: wallet() } }, hasNext: true });
    expect(events[0]!.data.wallet).not.toHaveProperty('totalValueUsd');
    expect(events[1]!.incremental?.[0]).toMatchObject({ path: ['wallet'], data: { totalValueUsd: expect.any(Number) } });
  });

  it('delivers deferred parts over graphql-ws', async () => {
    const server = createServer(nodeListener(gw.app.yoga));
    const closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const received: Part[] = [];
      for await (const part of client.iterate({ query: deferredValue, variables: { address: wallet() } })) received.push(part as Part);
      expect(received[0]).toMatchObject({ data: { wallet: { address: wallet() } }, hasNext: true });
      expect(received[1]!.incremental?.[0]).toMatchObject({ path: ['wallet'], data: { totalValueUsd: expect.any(Number) } });
    } finally {
      await client.dispose();
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
