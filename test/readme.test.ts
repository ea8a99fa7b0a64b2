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
