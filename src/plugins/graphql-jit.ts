import { createRequire, Module } from 'node:module';

/**
 * graphql-jit without the serializer compiler it requires when loaded. Its `compileQuery` calls
 * fast-json-stringify (with ajv, ajv-formats and fast-uri) only under the `customJSONSerializer` option,
 * which the gateway never sets, yet a process that loads graphql-jit keeps all of them for its whole
 * life. Before graphql-jit is first required, its `fast-json-stringify` resolves to a stand-in in
 * `require.cache` that requires the real package on its first call. The heap this saves is in
 * bench/PHASES.md ("Start heap, fourth pass"); test/lazy-modules.test.ts fails when the package is loaded.
 */
const require = createRequire(import.meta.url);
const fastJsonPath = createRequire(require.resolve('graphql-jit')).resolve('fast-json-stringify');
if (!require.cache[fastJsonPath]) {
  let real: ((...args: unknown[]) => unknown) | undefined;
  const standIn = new Module(fastJsonPath);
  standIn.filename = fastJsonPath;
  standIn.loaded = true;
  standIn.exports = (...args: unknown[]) => {
    if (!real) {
      delete require.cache[fastJsonPath];
      real = require(fastJsonPath) as (...args: unknown[]) => unknown;
    }
    return real(...args);
  };
  require.cache[fastJsonPath] = standIn;
}

const jit = require('graphql-jit') as typeof import('graphql-jit');
export const { compileQuery, isCompiledQuery } = jit;
