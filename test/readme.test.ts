import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestGateway } from './helpers/gateway.js';

/** The example queries of the README, pasted as a person would paste them into GraphiQL. */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README examples', () => {
  const gw = useTestGateway();

  it('has three', () => {
    expect(examples).toHaveLength(3);
  });

  it.each(examples.map((query, i) => [i + 1, query] as const))('example %i runs without errors and returns data', async (_n, query) => {
    const result = await gw.execute(query.replace('PASTE_A_WALLET', gw.sim.world.demoWallets[0]!), {}, gw.viewerHeaders);
    expect(result.errors).toBeUndefined();
    for (const value of Object.values(result.data!)) expect(value).not.toBeNull();
  });
});

describe("the README's price history example", () => {
  const gw = useTestGateway();
  const example = examples.find((query) => query.includes('priceHistory('))!;
  /** The example's `priceHistory` with `first: 3` replaced by other page arguments. */
  const paged = (args: string) => example.replace('first: 3)', `${args})`);
  const HOUR = 3_600_000;

  async function history(query: string): Promise<any> {
    const result = await gw.execute(query);
    expect(result.errors).toBeUndefined();
    return (result.data as any).asset.priceHistory;
  }

  it('returns 3 points and a cursor, then pages on with after: to the next 3, contiguous', async () => {
    expect(example).toContain('from: "2025-11-01T00:00:00Z", resolution: ONE_HOUR, first: 3');
    const first = await history(example);
    expect(first.edges).toHaveLength(3);
    expect(first.totalCount).toBeGreaterThan(2000);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const times = [first];
    let page = first;
    for (let i = 0; i < 2; i++) {
      page = await history(paged(`first: 3, after: ${JSON.stringify(page.pageInfo.endCursor)}`));
      expect(page.edges).toHaveLength(3);
      expect(page.pageInfo.hasNextPage).toBe(true);
      times.push(page);
    }
    const stamps = times.flatMap((p) => p.edges.map((e: any) => Date.parse(e.node.timestamp)));
    const start = Date.parse('2025-11-01T00:00:00Z');
    expect(stamps).toEqual(Array.from({ length: 9 }, (_, i) => start + i * HOUR));
    for (const edge of times.flatMap((p) => p.edges)) {
      expect(edge.node.priceUsd).toBeCloseTo(gw.sim.world.priceAt('bitcoin:native', Date.parse(edge.node.timestamp))!, 3);
    }
  });

  it('refuses a single page larger than the limit, before any call', async () => {
    gw.sim.controls.resetCounts();
    for (const args of ['first: 2001', '']) {
      // `first: 2001`, then no page size at all over a range of more than 2,000 points (a comma is whitespace in GraphQL).
      const result = await gw.execute(paged(args));
      expect(result.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([[['asset', 'priceHistory'], 'BAD_USER_INPUT']]);
      expect(result.errors![0]!.message).toMatch(/2000/);
    }
    expect(gw.sim.controls.count('assets', 'GET /v0/assets/:id/history')).toBe(0);
  });
});
