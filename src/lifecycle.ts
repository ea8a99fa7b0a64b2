import type { Server } from 'node:http';
import { frontDoor } from './admission.js';
import { createMetricsServer } from './metrics-server.js';
import { createHttpServer, SERVER_TIMEOUTS, withFastPath } from './node-http.js';
import { createApp, type AppOptions } from './app.js';
import { ConfigError, loadConfig, type Config, type UpstreamUrls } from './config.js';
import type { Logger } from './logger.js';
import { createServices } from './services.js';
import { cursorKeyRefusal } from './stores/cursor-signer.js';
import { attachGraphQLWsOnUpgrade } from './ws-lazy.js';

/**
 * The gateway process's life: built, listening, ready, drained on a signal, stopped. Shared by the two
 * entry points, `server.ts` (production, `node dist/server.js`) and `dev.ts` (`npm start`, with the
 * embedded simulator); the Node HTTP server itself is `node-http.ts`'s. Imports nothing of the simulator.
 */

/** Prints one line to stderr and ends the process with exit code 1. */
export function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

/** The configuration, or one line naming the variable at fault and exit code 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`);
    throw error;
  }
}

export interface RunGatewayOptions {
  config: Readonly<Config>;
  urls: UpstreamUrls;
  logger: Logger;
  graphiql?: AppOptions['graphiql'];
  /**
   * Runs once the port is bound and the services have started, with the port actually bound (the
   * development entry starts its event emitter and prints its banner). What it returns runs first on
   * shutdown.
   */
  onReady?: (port: number) => void | (() => Promise<void>);
  /** Runs last on shutdown, after the services have closed (the development entry stops its simulator). */
  onStopped?: () => Promise<void>;
}

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Builds the gateway and listens on `config.port`. A port that cannot be bound ends the process at once
 * (exit code 1, one line naming the port). SIGTERM or SIGINT drain it: readiness turns 503, WebSockets
 * close with 1001, event streams complete, in-flight requests finish, then the process exits 0.
 */
export async function runGateway(options: RunGatewayOptions): Promise<void> {
  const { config, urls, logger } = options;
  const refusal = cursorKeyRefusal(config);
  if (refusal) fail(`Configuration error: ${refusal}`);
  // Registered before any request, and only when the OTEL_* variables ask for it.
  const tracing = config.tracing ? (await import('./tracing.js')).startTracing() : null;
  const services = createServices({ config, urls, logger });
  const app = createApp({ config, services, graphiql: options.graphiql });
  app.setPhase('starting');
  // Executed requests of the common shape are answered behind the admission, before Yoga (direct/path.ts).
  const server = createHttpServer(frontDoor(app.direct ? withFastPath(app.yoga, app.direct) : app.yoga, config.admission, services.registry), SERVER_TIMEOUTS, app.hits);

  // Bound before anything slow starts, so a taken port is reported at once. The WebSocket server is
  // attached after: attached before, it re-emits the listen error as its own and the process lingers.
  await listen(server, config.port, 'PORT');
  const metricsServer = config.metricsPort === null ? null : createMetricsServer(services.registry);
  if (metricsServer) await listen(metricsServer, config.metricsPort!, 'METRICS_PORT');
  const closeGraphQLWs = attachGraphQLWsOnUpgrade(server, app.yoga, { production: config.production, maxSockets: config.maxStreams });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let stopping = false;
  let beforeStop: (() => Promise<void>) | void = undefined;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    app.setPhase('draining');
    await beforeStop?.();
    // WebSockets outlive the HTTP server's close(). Closed first, with 1001 Going Away, their graphql-ws
    // clients reconnect and subscribe again (to another replica) rather than see their streams complete.
    await closeGraphQLWs();
    // Open event streams never end on their own: complete them so in-flight requests can finish.
    await services.events.close();
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing connections');
      server.closeAllConnections();
    }, DRAIN_TIMEOUT_MS);
    force.unref();
    // Stop accepting; close idle keep-alive sockets so close() resolves once in-flight requests end.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    // The scraper reads the last figures while requests drain; closed once they have.
    await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
    await services.close();
    await tracing?.shutdown();
    await options.onStopped?.();
    clearTimeout(force);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await services.start();
  if (stopping) return;
  app.setPhase('ready');
  const base = `http://localhost:${port}`;
  const metrics = `http://localhost:${config.metricsPort ?? port}/metrics`;
  console.log(
    `\nGateway ready: ${config.production ? 'GraphQL' : 'GraphiQL'} at ${base}/graphql  (health ${base}/health, readiness ${base}/ready, metrics ${metrics})`,
  );
  beforeStop = options.onReady?.(port);
}

/** Binds `port`; a port taken or not allowed ends the process with one line naming `variable`. */
async function listen(server: Server, port: number, variable: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') fail(`Port ${port} is already in use (set ${variable} to a free port)`);
    if (error.code === 'EACCES') fail(`Port ${port} cannot be bound by this user (set ${variable} to a free port above 1023)`);
    throw error;
  });
}
