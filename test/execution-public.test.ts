import { GraphQLFloat, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PUBLIC_SUBTREES_MAX_BYTES } from '../src/execution-public.js';
import { heldBytes } from '../src/held.js';
import { compileDocument, runCompiled } from '../src/plugins/jit.js';
import { operation, useTestGateway } from './helpers/gateway.js';

// The type names are the response cache's data kinds (response-cache/policy.ts): markets and assets public, a subscriber private.
const calls = { markets: 0, prices: 0, viewer: 0 };
let failMarkets = false;
const AssetPrice = new GraphQLObjectType({ name: 'AssetPrice', fields: { usd: { type: GraphQLFloat } } });
const Asset = new GraphQLObjectType({
  name: 'Asset',
  fields: {
    symbol: { type: GraphQLString },
    price: {
      type: AssetPrice,
      resolve: () => {
        calls.prices++;
        return { usd: 1 };
      },
    },
  },
});
const Market = new GraphQLObjectType({ name: 'Market', fields: { id: { type: GraphQLString }, apy: { type: GraphQLFloat }, token: { type: Asset } } });
const Subscriber = new GraphQLObjectType({ name: 'Subscriber', fields: { id: { type: GraphQLString } } });
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      viewer: {
        type: Subscriber,
        resolve: async (_root, _args, context: { user: string }) => {
          calls.viewer++;
          await Promise.resolve();
          return { id: context.user };
        },
      },
      markets: {
        type: new GraphQLList(new GraphQLNonNull(Market)),
        args: { first: { type: GraphQLInt } },
        resolve: (_root, { first }: { first?: number | null }) => {
          calls.markets++;
          if (failMarkets) throw new Error('listing unavailable');
          return Array.from({ length: first ?? 2 }, (_, i) => ({ id: `m${i}`, apy: 0.05 + i, token: { symbol: `T${i}` } }));
        },
      },
    },
  }),
});

let version = 1;
const contextOf = (user: string, scope: Record<string, unknown> = {}, holdMs = 1000) => ({
  user,
  scope,
  services: { config: { publicSubtreeHoldMs: holdMs }, marketIndex: { version: () => version } },
});
const MOBILE = parse('query Home($n: Int) { viewer { id } top: markets(first: $n) { id apy token { symbol } } }');

/** What the server writes: Yoga's result processing calls the result's compiled serializer. */
const written = (result: ExecutionResult & { stringify?: (value: unknown) => string }) => result.stringify!(result);

afterEach(() => {
  calls.markets = calls.prices = calls.viewer = 0;
  failMarkets = false;
  version++;
  vi.useRealTimers();
});

describe('public root fields of a query that reads a caller’s own data', () => {
  it('are resolved once per hold for every caller, the private fields every time, and written as a whole compile writes them', async () => {
    const compiled = compileDocument(schema, MOBILE);
    const whole = compileDocument(schema, MOBILE);
    const first = await runCompiled(compiled, contextOf('alice'), { n: 3 });
    const second = await runCompiled(compiled, contextOf('bob'), { n: 3 });
    expect(calls).toEqual({ markets: 1, prices: 0, viewer: 2 });
    const unheld = await runCompiled(whole, contextOf('bob', {}, 0), { n: 3 });
    expect(written(second)).toBe(JSON.stringify({ data: unheld.data }));
    expect(written(second)).toBe('{"data":{"viewer":{"id":"bob"},"top":[{"id":"m0","apy":0.05,"token":{"symbol":"T0"}},{"id":"m1","apy":1.05,"token":{"symbol":"T1"}},{"id":"m2","apy":2.05,"token":{"symbol":"T2"}}]}}');
    expect(Object.keys(first.data!)).toEqual(['viewer', 'top']);
    // Yoga hands the serializer a copy without `extensions.http` (an undefined member); any other member is written by JSON.stringify.
    const extended = { ...second, extensions: { note: 1 } };
    expect(written({ ...second, extensions: undefined })).toBe(written(second));
    expect(written(extended)).toBe(JSON.stringify(extended));
    // Held within one bound for the process, reported on /metrics (gateway_held_bytes{structure="public_subtrees"}).
    expect(heldBytes().get('public_subtrees')).toMatchObject({ maxBytes: PUBLIC_SUBTREES_MAX_BYTES });
    expect(heldBytes().get('public_subtrees')!.bytes).toBeGreaterThan(written(second).length);
  });

  it('are held by the variables they read, an absent variable apart from an explicit null', async () => {
    const compiled = compileDocument(schema, MOBILE);
    for (const variables of [{ n: 1 }, { n: 2 }, { n: 1 }, {}, { n: null }, {}]) await runCompiled(compiled, contextOf('alice'), variables);
    expect(calls.markets).toBe(4);
  });

  it('are resolved again once the hold ends, once the market index reads a new listing, and every time with a ledger, a freshness bound or a hold of 0', async () => {
    // The stores' clock keeps its reading until the loop's next check phase (stores/clock.ts): let it go before the clock is faked.
    await new Promise((resolve) => setImmediate(resolve));
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'setImmediate'] });
    const compiled = compileDocument(schema, MOBILE);
    const run = async (scope?: Record<string, unknown>, holdMs?: number) => {
      await runCompiled(compiled, contextOf('alice', scope, holdMs), { n: 2 });
      vi.advanceTimersByTime(1);
    };
    await run();
    await run();
    expect(calls.markets).toBe(1);
    vi.advanceTimersByTime(1000);
    await run();
    expect(calls.markets).toBe(2);
    version++;
    await run();
    expect(calls.markets).toBe(3);
    await run({ ledger: {} });
    await run({ freshness: { maxAgeMs: 0 } });
    await run({}, 0);
    expect(calls.markets).toBe(6);
    await run();
    expect(calls.markets).toBe(6);
  });

  it('are not held when they answer an error, and the error is answered beside the private data', async () => {
    const compiled = compileDocument(schema, MOBILE);
    failMarkets = true;
    const failed = await runCompiled(compiled, contextOf('alice'), { n: 2 });
    expect(failed.data).toEqual({ viewer: { id: 'alice' }, top: null });
    expect(failed.errors?.map((e) => e.message)).toEqual(['listing unavailable']);
    failMarkets = false;
    await runCompiled(compiled, contextOf('alice'), { n: 2 });
    await runCompiled(compiled, contextOf('alice'), { n: 2 });
    expect(calls.markets).toBe(2);
  });

  it('are not held when they select prices, nor in a document of public fields alone', async () => {
    const priced = compileDocument(schema, parse('{ viewer { id } markets { id token { price { usd } } } }'));
    const publicOnly = compileDocument(schema, parse('{ markets { id } again: markets(first: 1) { id } }'));
    for (let i = 0; i < 2; i++) {
      await runCompiled(priced, contextOf('alice'), {});
      await runCompiled(publicOnly, contextOf('alice'), {});
    }
    expect(calls).toEqual({ markets: 6, prices: 4, viewer: 2 });
  });

  it('answer a variable that does not coerce once, as a whole compile does', async () => {
    const compiled = compileDocument(schema, MOBILE);
    const refused = await runCompiled(compiled, contextOf('alice'), { n: 'many' });
    expect(refused.data).toBeUndefined();
    expect(refused.errors).toHaveLength(1);
  });
});

describe('MobileHome through the gateway', () => {
  const gw = useTestGateway();

  it('answers its top lending markets in the same bytes once compiled and held as graphql-js wrote them, after the viewer', async () => {
    const post = async () => {
      const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...gw.viewerHeaders },
        body: JSON.stringify({ query: operation('MobileHome') }),
      });
      return response.text();
    };
    // The first run is graphql-js's; the JIT compiles the document on its second, which is split. The
    // viewer's positions are valued on each read (the simulator's prices move): only the public part is compared.
    const answers = [await post(), await post(), await post()];
    const lending = answers.map((text) => text.slice(text.indexOf(',"topLending":')));
    expect(JSON.parse(answers[0]!).data.topLending.edges).toHaveLength(5);
    expect(lending[1]).toBe(lending[0]);
    expect(lending[2]).toBe(lending[0]);
    for (const text of answers) expect(Object.keys(JSON.parse(text).data)).toEqual(['viewer', 'topLending']);
  });
});
