import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { DEFAULT_MAX_QUERY_COST } from '../../src/config.js';
import { operationCost } from '../../src/plugins/query-cost.js';
import { ITEM_COST, POINT_COST, SERIES_CALL_COST } from '../../src/schema/common/cost.js';
import { schema } from '../../src/schema/index.js';
import { attachGraphQLWs } from '../../src/ws.js';
import { startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';
import { addresses, bombs, screens, type Measured } from './screens.js';
import { nodeListener } from '../../src/node-http.js';

const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  operationCost({ schema, document: parse(query), variableValues: variables, ...(operationName ? { operationName } : {}) });
const costOf = (m: Measured) => cost(m.query, m.variables, m.operationName);

const WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const APP_ID = '00000000-0000-4000-8000-000000000000';
const market = (selection: string) => `{ markets(first: 10) { edges { node { marketId ${selection} } } } }`;

describe('the cost model', () => {
  it('prices every real screen below MAX_QUERY_COST and every bomb above it (the calibration)', () => {
    const rows = [...screens(WALLET, addresses(25), APP_ID), ...bombs(WALLET)].map((m) => [m.name, costOf(m)] as const);
    // The figures the default limit was chosen from (README, MAX_QUERY_COST).
    console.log(`MAX_QUERY_COST ${DEFAULT_MAX_QUERY_COST}\n${rows.map(([name, c]) => `${String(c).padStart(12)}  ${name}`).join('\n')}`);
    const screenNames = new Set(screens(WALLET, [], APP_ID).map((m) => m.name));
    for (const [name, c] of rows) {
      expect(typeof c, name).toBe('number');
      if (screenNames.has(name)) expect(c, name).toBeLessThanOrEqual(DEFAULT_MAX_QUERY_COST / 1.5);
      else expect(c, name).toBeGreaterThan(DEFAULT_MAX_QUERY_COST);
    }
  });

  it('multiplies by first, by the default page size, and by the length of ids and addresses', () => {
    const positions = (args: string) => `{ wallet(address: "${WALLET}") { positions${args} { edges { node { id } } } } }`;
    // positions 1 + n items × ITEM_COST; what each item selects from its record (edges, node, id) costs nothing.
    expect(cost(positions('(first: 50)'))).toBe(1 + 50 * ITEM_COST);
    expect(cost(positions(''))).toBe(1 + 20 * ITEM_COST);
    expect(cost('query($a: [String!]!) { wallets(addresses: $a) { address } }', { a: addresses(25) })).toBe(1 + 25 * ITEM_COST);
    expect(cost('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: ['a', 'b', 'c'] })).toBe(1 + 3 * ITEM_COST);
    // A page inside a page costs the inner page's items once per outer item.
    const nested = `query($a: [String!]!) { wallets(addresses: $a) { positions(first: 10) { edges { node { id } } } } }`;
    expect(cost(nested, { a: addresses(5) })).toBe(1 + 5 * ITEM_COST + 5 * (1 + 10 * ITEM_COST));
  });

  it('reads list sizes from variable values', () => {
    const page = 'query($n: Int) { markets(first: $n) { edges { node { marketId } } } }';
    expect(cost(page, { n: 100 })).toBe(10 * (cost(page, { n: 10 }) as number) - 9);
    const everyKind = screens(WALLET, [], APP_ID).find((m) => m.name.startsWith('100 markets'))!;
    expect(costOf({ ...everyKind, variables: { first: 100 } })).toBeGreaterThan(3 * (costOf({ ...everyKind, variables: { first: 25 } }) as number));
  });

  it('counts a history by the points of its window, at most 2,000', () => {
    const history = (from: string, resolution: string) =>
      `{ market(id: "m") { apyHistory(from: "${from}", to: "2025-11-08T00:00:00Z", resolution: ${resolution}) { timestamp } } }`;
    // Its call, 1, and each point.
    expect(cost(history('2025-11-01T00:00:00Z', 'ONE_DAY'))).toBe(SERIES_CALL_COST + 1 + 8 * POINT_COST);
    expect(cost(history('2020-01-01T00:00:00Z', 'ONE_HOUR'))).toBe(SERIES_CALL_COST + 1 + 2000 * POINT_COST);
  });

  it('prices fragments as their inline selections, and aliases each on its own', () => {
    const inline = market('... on LendingMarket { token { symbol } }');
    const spread = `${market('...L')} fragment L on LendingMarket { token { symbol } }`;
    expect(cost(spread)).toBe(cost(inline));
    const twice = `{ a: markets(first: 10) { edges { node { marketId } } } b: markets(first: 10) { edges { node { marketId } } } }`;
    expect(cost(twice)).toBe(2 * (cost(market('')) as number));
  });

  it('prices fragments on an interface as the dearest of its types, not their sum', () => {
    const one = market('... on LendingMarket { token { symbol } borrowToken { symbol } }');
    const both = market('... on LendingMarket { token { symbol } borrowToken { symbol } } ... on YieldMarket { token { symbol } }');
    expect(cost(both)).toBe(cost(one));
  });

  it('leaves out what @skip and @include leave out', () => {
    const skipped = 'query($s: Boolean!) { markets(first: 100) @skip(if: $s) { edges { node { marketId } } } }';
    expect(cost(skipped, { s: true })).toBe(0);
    expect(cost(skipped, { s: false })).toBeGreaterThan(100);
  });

  it('measures the operation that runs in a document of several', () => {
    const document = `query Small { __typename } query Big { markets(first: 200) { edges { node { marketId } } } }`;
    expect(cost(document, {}, 'Small')).toBe(1);
    expect(cost(document, {}, 'Big')).toBeGreaterThan(200);
  });
});

describe('MAX_QUERY_COST at the gateway', () => {
  let gw: TestGateway;
  let wallet: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    wallet = gw.sim.world.demoWallets[0]!;
  });
  afterAll(() => gw.close());
  beforeEach(() => gw.sim.controls.resetCounts());

  it('admits every real screen', async () => {
    for (const screen of screens(wallet, gw.sim.world.wallets.slice(0, 25).map((w) => w.address), gw.sim.alerts.demo.appId)) {
      const headers = { ...gw.viewerHeaders, 'x-service-api-key': gw.sim.alerts.demo.apiKey };
      const result = await gw.execute(screen.query, screen.variables, headers, screen.operationName);
      expect(result.status, screen.name).toBe(200);
      expect(result.errors ?? [], screen.name).toEqual([]);
    }
  });

  it('refuses every bomb with QUERY_TOO_COMPLEX and HTTP 400, before any upstream call', async () => {
    for (const bomb of bombs(wallet)) {
      const result = await gw.execute(bomb.query, bomb.variables);
      expect(result.status, bomb.name).toBe(400);
      expect(result.data ?? null, bomb.name).toBeNull();
      expect(result.errors?.[0]?.extensions?.['code'], bomb.name).toBe('QUERY_TOO_COMPLEX');
      expect(result.errors?.[0]?.message, bomb.name).not.toMatch(/Syntax Error/);
    }
    expect(totalCalls(gw)).toBe(0);
  });

  it('says what it measured: the cost, the limit, and a message that names both', async () => {
    const bomb = bombs(wallet).find((b) => b.name.startsWith('nodes(ids: 100 wallets)'))!;
    const result = await gw.execute(bomb.query, bomb.variables);
    expect(result.status).toBe(400);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors!;
    expect(error!.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', cost: costOf(bomb), maxCost: DEFAULT_MAX_QUERY_COST });
    expect(error!.message).toBe(
      `This operation costs ${costOf(bomb)}, above the limit of ${DEFAULT_MAX_QUERY_COST}: ask for fewer items (smaller first, fewer ids or aliases, less nesting).`,
    );
  });

  it('refuses a document whose fragments spread past 10,000 selections, without counting on', async () => {
    // F4 spreads F3 eleven times, ... : 11^4 selections of __typename from a document of a few hundred
    // tokens, within armor's depth and token limits.
    const fragments = Array.from({ length: 4 }, (_, i) => `fragment F${i + 1} on Query { ${`...F${i} `.repeat(11)}}`).join(' ');
    const result = await gw.execute(`{ ...F4 } fragment F0 on Query { __typename } ${fragments}`);
    expect(result.status).toBe(400);
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', maxCost: DEFAULT_MAX_QUERY_COST });
    expect(result.errors?.[0]?.message).toMatch(/more than 10000 fields/);
  });

  it('takes its limit from MAX_QUERY_COST', async () => {
    const small = await startTestGateway({ sim: gw.sim, config: { maxQueryCost: 100 } });
    try {
      const page = 'query($n: Int) { markets(first: $n) { edges { node { marketId } } } }';
      expect((await small.execute(page, { n: 5 })).errors).toBeUndefined();
      const refused = await small.execute(page, { n: 50 });
      expect(refused.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', cost: 1 + 50 * ITEM_COST, maxCost: 100 });
    } finally {
      await small.close();
    }
  });

  it('refuses a subscription over server-sent events', async () => {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: expensiveSubscription }),
    });
    const text = await response.text();
    expect(text).toContain('"code":"QUERY_TOO_COMPLEX"');
    expect(text).toContain(`"maxCost":${DEFAULT_MAX_QUERY_COST}`);
  });

  it('refuses over WebSocket, queries and subscriptions alike', async () => {
    const server: Server = createServer(nodeListener(gw.app.yoga));
    const closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const first = (query: string, variables: Record<string, unknown> = {}) =>
      new Promise<{ errors?: readonly { extensions?: Record<string, unknown> }[] }>((resolve, reject) => {
        const stop = client.subscribe({ query, variables }, {
          next: (value) => (stop(), resolve(value as never)),
          error: (error) => (Array.isArray(error) ? resolve({ errors: error }) : reject(error instanceof Error ? error : new Error('the operation failed', { cause: error }))),
          complete: () => reject(new Error('completed without an answer')),
        });
      });
    try {
      const bomb = bombs(wallet).find((b) => b.name.startsWith('nodes(ids: 100 wallets)'))!;
      const query = await first(bomb.query, bomb.variables);
      expect(query.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', cost: costOf(bomb), maxCost: DEFAULT_MAX_QUERY_COST });
      const subscription = await first(expensiveSubscription);
      expect(subscription.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxCost: DEFAULT_MAX_QUERY_COST });
      expect(totalCalls(gw)).toBe(0);
    } finally {
      await client.dispose();
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/** Each event would open 100 positions whose owners open 100 positions each. */
const expensiveSubscription =
  'subscription { events { kind ... on TokenLastTradePriceChangeEvent { wallet { positions(first: 100) { edges { node { owner { positions(first: 100) { edges { node { id } } } } } } } } } } }';
