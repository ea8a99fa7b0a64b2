import { defineConfig } from 'vitest/config';

/**
 * Tests that load the machine and bound a gateway's event-loop delay under a webhook flood: they run after
 * every other file, alone, so what they measure is the gateway under their own load, not the other test
 * files sharing the machine's cores.
 */
const TIMED = ['test/events/webhook-flood.test.ts'];

export default defineConfig({
  // graphql has no `exports` map: Vite would give our sources its ESM build while Yoga (externalized)
  // loads the CommonJS one, and errors thrown by resolvers would no longer be `instanceof GraphQLError`.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'gateway', include: ['test/**/*.test.ts', 'src/**/*.test.ts'], exclude: TIMED } },
      { extends: true, test: { name: 'timed', include: TIMED, sequence: { groupOrder: 1 }, maxWorkers: 1 } },
    ],
  },
});
