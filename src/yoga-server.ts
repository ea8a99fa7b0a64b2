import { createServerAdapter } from '@whatwg-node/server';
import { YogaServer, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';

/**
 * Yoga's `createYoga`, with one option it leaves out. Without `__useCustomAbortCtrl`, the server adapter
 * decides it by comparing Yoga's `Request` with `globalThis.Request`, and reading that global loads Node's
 * bundled undici (its fetch and WebSocket), which the gateway never uses and a process keeps for its
 * whole life. On Node, Yoga's `Request` is @whatwg-node/fetch's own, never the global, so the comparison
 * always answers `true`: that is the value given here. The heap this saves is in bench/PHASES.md
 * ("Start heap, fourth pass"); test/lazy-modules.test.ts fails when the bundled undici is loaded again, and
 * test/yoga-server.test.ts when an upgrade of Yoga changes what its createYoga passes.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the constraint of Yoga's own createYoga
export function createYogaServer<TServerContext extends Record<string, any>, TUserContext extends Record<string, any>>(
  options: YogaServerOptions<TServerContext, TUserContext>,
): YogaServerInstance<TServerContext, TUserContext> {
  const server = new YogaServer<TServerContext, TUserContext>(options);
  return createServerAdapter<TServerContext, YogaServer<TServerContext, TUserContext>>(server, {
    fetchAPI: server.fetchAPI,
    // Yoga's plugins are the adapter's too (its onRequest and onResponse hooks), as createYoga passes them.
    plugins: server['plugins'],
    disposeOnProcessTerminate: options.disposeOnProcessTerminate,
    __useCustomAbortCtrl: true,
  });
}
