import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { YogaServerInstance } from 'graphql-yoga';
import type { RequestContext, ServerContext } from './context.js';
import type { GraphQLWsOptions } from './ws.js';

/**
 * `attachGraphQLWs` deferred to the first WebSocket upgrade: ws and graphql-ws stay out of a process
 * that never sees one, which keeps its heap after start (and so the heap size of its first full
 * collection) smaller. Returns the disposer that closes every socket, as `attachGraphQLWs` does.
 */
export function attachGraphQLWsOnUpgrade(
  httpServer: Server,
  yoga: YogaServerInstance<ServerContext, RequestContext>,
  options: GraphQLWsOptions,
): () => Promise<void> {
  let attached: Promise<() => Promise<void>> | undefined;
  const onFirstUpgrades = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A socket that fails while the modules load must not be an unhandled 'error'.
    const ignoreError = () => {};
    socket.on('error', ignoreError);
    attached ??= import('./ws.js').then(({ attachGraphQLWs }) => {
      httpServer.off('upgrade', onFirstUpgrades);
      return attachGraphQLWs(httpServer, yoga, options);
    });
    attached.then(
      () => {
        socket.off('error', ignoreError);
        // The WebSocket server listens from now on; this upgrade came before it did, so it is handed over again.
        if (!socket.destroyed) httpServer.emit('upgrade', request, socket, head);
      },
      () => socket.destroy(),
    );
  };
  httpServer.on('upgrade', onFirstUpgrades);
  return async () => {
    httpServer.off('upgrade', onFirstUpgrades);
    if (attached) await (await attached)();
  };
}
