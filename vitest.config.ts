import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql has no `exports` map: Vite would give our sources its ESM build while Yoga (externalized)
  // loads the CommonJS one, and errors thrown by resolvers would no longer be `instanceof GraphQLError`.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
