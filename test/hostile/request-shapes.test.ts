import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { nodeListener } from '../../src/node-http.js';
import { attachGraphQLWs } from '../../src/ws.js';
import { useTestGateway, type TestGateway } from '../helpers/gateway.js';

/** 100,000 levels of `[…]` around `inner`, as JSON text (200 KB, well within the 2 MiB body limit). */
const deep = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

/** POSTs a raw JSON body to /graphql; the status and the parsed answer. */
async function postRaw(gw: TestGateway, body: string): Promise<{ status: number; body: any }> {
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const PROVIDERS = 'query ($p: [String!]) { markets(first: 1, filter: { providers: $p }) { totalCount } }';
const CACHEABLE = 'query ($n: Int) { markets(first: $n) { totalCount } }';
const UNCACHEABLE = 'query ($n: Int) { markets(first: $n) { totalCount } viewer { walletAddress } }';

for (const responseCache of [true, false]) {
  describe(`request shapes that were 500s (response cache ${responseCache ? 'on' : 'off'})`, () => {
    const gw = useTestGateway({ config: { responseCache, production: true } });

    it('a query sent as a number, an array or an object with a length is 400 BAD_REQUEST', async () => {
      for (const query of ['42', '["{ __typename }"]', '{"length": 3}', '{"body": "{ __typename }"}', 'true']) {
        const answer = await postRaw(gw, `{"query": ${query}}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body.errors?.[0]?.extensions?.code, query).toBe('BAD_REQUEST');
      }
    });

    it.each([
      ['cache key and cost', CACHEABLE],
      ['cost of an uncacheable document', UNCACHEABLE],
      ['input coercion of MarketFilter.providers', PROVIDERS],
    ])('variables 5,000 and 100,000 levels deep (%s) are 400 BAD_REQUEST, never a stack overflow', async (_what, query) => {
      for (const levels of [5_000, 100_000]) {
        for (const variables of [`{"n": ${deep(levels)}}`, `{"p": ${deep(levels, '"kamino"')}}`, `{"n": 1, "x": ${deep(levels, '{}')}}`]) {
          const answer = await postRaw(gw, `{"query": ${JSON.stringify(query)}, "variables": ${variables}}`);
          expect(answer.status, `${levels}`).toBe(400);
          expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
          expect(answer.body.errors[0].message).toMatch(/nest/);
        }
        const extensions = await postRaw(gw, `{"query": ${JSON.stringify(query)}, "extensions": {"x": ${deep(levels)}}}`);
        expect(extensions.status).toBe(400);
      }
    });

    it('variables as deep as real operations nest still run', async () => {
      const answer = await postRaw(gw, JSON.stringify({ query: PROVIDERS, variables: { p: ['kamino'], extra: deep(20) } }));
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
    });

    it('a number JSON cannot hold (1e400) is refused, not answered as null from the cache', async () => {
      const query = CACHEABLE;
      const asNull = await postRaw(gw, JSON.stringify({ query, variables: { n: null } }));
      expect(asNull.status).toBe(200);
      expect(asNull.body.data.markets.totalCount).toBeGreaterThan(0);
      for (const n of ['1e400', '-1e400', `{"deeper": [1e999]}`]) {
        const answer = await postRaw(gw, `{"query": ${JSON.stringify(query)}, "variables": {"n": ${n}}}`);
        expect(answer.status, n).toBe(400);
        expect(answer.body.errors?.[0]?.extensions?.code, n).toBe('BAD_REQUEST');
        expect(answer.body.data, n).toBeUndefined();
      }
    });
  });
}

describe('the same shapes over GET and over a WebSocket', () => {
  const gw = useTestGateway({ config: { responseCache: true } });

  it('a GET with variables 100,000 levels deep is 400 BAD_REQUEST', async () => {
    const url = `http://gateway.test/graphql?query=${encodeURIComponent(CACHEABLE)}&variables=${encodeURIComponent(`{"n": ${deep(100_000)}}`)}`;
    const response = await gw.app.yoga.fetch(url, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(400);
    expect(((await response.json())).errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('a subscribe message with variables 100,000 levels deep, or 1e400, is answered with BAD_REQUEST and the socket stays usable', async () => {
    const server = createServer(nodeListener(gw.app.yoga));
    const closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, 'graphql-transport-ws');
    const messages: { id?: string; type: string; payload?: any }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString('utf8'))));
    const next = (predicate: (m: (typeof messages)[number]) => boolean) =>
      new Promise<(typeof messages)[number]>((resolve) => {
        const poll = () => (messages.find(predicate) ? resolve(messages.find(predicate)!) : setTimeout(poll, 10));
        poll();
      });
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(JSON.stringify({ type: 'connection_init' }));
      await next((m) => m.type === 'connection_ack');
      const query = JSON.stringify(CACHEABLE);
      ws.send(`{"id": "deep", "type": "subscribe", "payload": {"query": ${query}, "variables": {"n": ${deep(100_000)}}}}`);
      ws.send(`{"id": "huge", "type": "subscribe", "payload": {"query": ${query}, "variables": {"n": 1e400}}}`);
      ws.send(`{"id": "fine", "type": "subscribe", "payload": {"query": ${query}, "variables": {"n": 1, "shallow": ${deep(20)}}}}`);
      for (const id of ['deep', 'huge']) {
        const answer = await next((m) => m.id === id);
        expect(answer.type, id).toBe('error');
        expect(answer.payload[0].extensions.code, id).toBe('BAD_REQUEST');
      }
      expect((await next((m) => m.id === 'fine' && m.type === 'next')).payload.data.markets.totalCount).toBeGreaterThan(0);
    } finally {
      ws.close();
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
