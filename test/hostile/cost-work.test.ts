import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_QUERY_COST } from '../../src/config.js';
import { DEFAULT_MAX_QUERY_CALLS } from '../../src/plugins/query-cost.js';
import { POINT_COST } from '../../src/schema/common/cost.js';
import { hostileDocuments, reportedDocuments, unknownAssetId, type HostileDocument, type World } from '../helpers/hostile-documents.js';
import { totalCalls, useTestGateway } from '../helpers/gateway.js';

/**
 * Issue 33 item 2: whatever the cost model admits stays within the work it promises. Generated documents
 * (aliases of every list and series field, unknown ids, the widest windows) are each either refused
 * before any upstream call, or run within the call budget without running into it, fetching no more
 * series points than their cost paid for, with an answer of bounded size. CPU and memory per admitted
 * document are measured by scripts/cost-work.ts (timings do not belong in a test on a shared machine).
 */
const gw = useTestGateway({ config: { upstreamCallBudget: DEFAULT_MAX_QUERY_CALLS } });

/**
 * The most series points an admitted document may fetch: every unit of its cost spent on points. A
 * wallet's value history is priced by its points, but read as one series per position (summed), so its
 * points may be that many times more: the bound is multiplied by the most positions a simulated wallet holds.
 */
const MAX_POINTS = DEFAULT_MAX_QUERY_COST / POINT_COST;
let mostPositions = 1;
/** The largest answer an admitted document may make (the 100-market page of every kind is ~180 KB). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

let world: World;
let pointsFetched = 0;
let valuePointsFetched = 0;

beforeAll(() => {
  world = {
    assets: gw.sim.world.assets.slice(0, 100).map((a) => a.id),
    wallets: gw.sim.world.wallets.slice(0, 100).map((w) => w.address),
  };
  mostPositions = Math.max(...[...gw.sim.world.positionsByOwner.values()].map((p) => p.length));
  // Series points as the upstream clients hand them over: what the gateway fetched and mapped.
  const { assets, markets } = gw.services.upstream;
  const count = <A extends unknown[], T>(original: (...args: A) => Promise<T>, points: (value: T) => number, ofValues = false) =>
    async (...args: A) => {
      const value = await original(...args);
      if (ofValues) valuePointsFetched += points(value);
      else pointsFetched += points(value);
      return value;
    };
  const [prices, apys, values] = [assets.getPriceHistory.bind(assets), markets.getMarketHistory.bind(markets), markets.getPositionHistory.bind(markets)];
  vi.spyOn(assets, 'getPriceHistory').mockImplementation(count(prices, (h) => h?.points.length ?? 0));
  vi.spyOn(markets, 'getMarketHistory').mockImplementation(count(apys, (hs) => hs.reduce((n, h) => n + h.points.length, 0)));
  vi.spyOn(markets, 'getPositionHistory').mockImplementation(count(values, (hs) => hs.reduce((n, h) => n + h.points.length, 0), true));
});

interface Outcome {
  refused: boolean;
  calls: number;
  points: number;
  valuePoints: number;
  bytes: number;
  budgetErrors: number;
}

async function run(document: HostileDocument): Promise<Outcome> {
  gw.sim.controls.resetCounts();
  pointsFetched = 0;
  valuePointsFetched = 0;
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: document.query, variables: document.variables }),
  });
  const text = await response.text();
  const body = JSON.parse(text) as { data?: unknown; errors?: { message: string; path?: unknown[]; extensions?: { code?: string } }[] };
  const errors = body.errors ?? [];
  return {
    refused: body.data == null && errors[0]?.extensions?.code === 'QUERY_TOO_COMPLEX',
    calls: totalCalls(gw),
    points: pointsFetched,
    valuePoints: valuePointsFetched,
    bytes: Buffer.byteLength(text),
    // A field error of the call budget: the operation was admitted and then ran out of calls halfway.
    budgetErrors: errors.filter((e) => e.path && e.extensions?.code === 'QUERY_TOO_COMPLEX').length,
  };
}

describe('the cost model bounds the work of what it admits', () => {
  it('refuses the two documents of the report before any upstream call', async () => {
    for (const document of reportedDocuments(world)) {
      const outcome = await run(document);
      expect(outcome, document.name).toMatchObject({ refused: true, calls: 0, points: 0 });
    }
  });

  it('runs every admitted generated document within the call budget, the points its cost paid for and a bounded answer', async () => {
    const admitted: string[] = [];
    for (const document of hostileDocuments(world, 33, 32)) {
      const outcome = await run(document);
      if (outcome.refused) {
        expect(outcome.calls, document.name).toBe(0);
        continue;
      }
      admitted.push(`${document.name}: ${outcome.calls} calls, ${outcome.points + outcome.valuePoints} points, ${outcome.bytes} bytes`);
      expect(outcome.budgetErrors, document.name).toBe(0);
      expect(outcome.calls, document.name).toBeLessThanOrEqual(DEFAULT_MAX_QUERY_CALLS);
      expect(outcome.points, document.name).toBeLessThanOrEqual(MAX_POINTS);
      expect(outcome.valuePoints, document.name).toBeLessThanOrEqual(MAX_POINTS * mostPositions);
      expect(outcome.bytes, document.name).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    }
    console.log(`admitted:\n${admitted.join('\n')}`);
    // The generator reaches both sides of the limit.
    expect(admitted.length).toBeGreaterThan(4);
    expect(admitted.length).toBeLessThan(32);
  }, 60_000);

  it('admits unknown ids up to the call budget, and counts an id the gateway holds as no call', async () => {
    const ids = (salt: number) => Array.from({ length: 100 }, (_, i) => Buffer.from(`Asset:${unknownAssetId(salt, i)}`).toString('base64'));
    const aliases = (n: number) => `query($ids: [ID!]!, $more: [ID!]!) { ${Array.from({ length: n }, (_, a) => `a${a}: nodes(ids: ${a % 2 ? '$more' : '$ids'}) { id }`).join(' ')} }`;
    // 100 ids under 24 aliases are one call each, however many aliases name them.
    expect(await run({ name: '100 unknown × 24', query: aliases(24), variables: { ids: ids(1), more: ids(1) } })).toMatchObject({ refused: false, calls: 100, budgetErrors: 0 });
    // Now held (an unknown id is remembered for a minute): none is counted, none is made.
    expect(await run({ name: 'again', query: aliases(24), variables: { ids: ids(1), more: ids(1) } })).toMatchObject({ refused: false, calls: 0 });
    // 200 distinct ids the gateway does not hold yet, past a call limit of 500 only with more: 6 × 100 distinct are refused.
    const six = `query(${[0, 1, 2, 3, 4, 5].map((a) => `$v${a}: [ID!]!`).join(', ')}) { ${[0, 1, 2, 3, 4, 5].map((a) => `a${a}: nodes(ids: $v${a}) { id }`).join(' ')} }`;
    const variables = Object.fromEntries([0, 1, 2, 3, 4, 5].map((a) => [`v${a}`, ids(600 + a)]));
    expect(await run({ name: '600 unknown', query: six, variables })).toMatchObject({ refused: true, calls: 0 });
  });
});
