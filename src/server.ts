import { randomBytes } from 'node:crypto';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type UpstreamUrls } from './config.js';
import { DEMO_QUERY } from './demo.js';
import { createHttpServer } from './http-server.js';
import { createLogger } from './logger.js';
import { createServices } from './services.js';
import { startEventEmitter, type WebhookEmitter } from './simulator/events/index.js';
import { startSimulator, type Simulator } from './simulator/index.js';
import { attachGraphQLWs } from './ws.js';

/** The only module with side effects: read the configuration, listen, and shut down gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);

  let simulator: Simulator | null = null;
  let urls: UpstreamUrls;
  if (config.upstreams) {
    urls = config.upstreams;
  } else {
    simulator = await startSimulator({ seed: config.simulatorSeed, clientKey: config.serviceClientKey ?? undefined });
    urls = simulator.urls;
    // The simulator's events reach the webhook signed; a secret of this process's own makes that work out of the box.
    if (!config.webhookSecret) config = Object.freeze({ ...config, webhookSecret: randomBytes(32).toString('hex') });
  }

  const services = createServices({ config, urls, logger });
  const demoHeaders = simulator
    ? { Authorization: `Bearer ${simulator.alerts.demo.token}`, 'X-Service-Client-Key': simulator.alerts.demo.clientKey }
    : undefined;
  const app = createApp({ config, services, graphiql: { defaultQuery: DEMO_QUERY, headers: demoHeaders } });
  const server = createHttpServer(app.yoga);
  const closeGraphQLWs = attachGraphQLWs(server, app.yoga, { production: config.production });
  await services.start();

  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://localhost:${port}`;
  let emitter: WebhookEmitter | null = null;
  if (simulator && config.webhookSecret) {
    emitter = startEventEmitter({
      world: simulator.world,
      targetUrl: `http://127.0.0.1:${port}/webhooks/events`,
      secret: config.webhookSecret,
      onDelivery: (result) => {
        if (!result.delivered) logger.warn({ ...result }, 'simulator: event webhook not delivered');
      },
    });
  }

  console.log(`\nGateway ready: GraphiQL at ${base}/graphql  (health ${base}/health, metrics ${base}/metrics)`);
  if (simulator) {
    const { demo } = simulator.alerts;
    console.log(`Upstreams: the embedded simulator at ${simulator.url} (seed ${config.simulatorSeed})`);
    console.log('Demo credentials (already filled in GraphiQL\'s headers):');
    console.log(`  Authorization: Bearer ${demo.token}`);
    console.log(`  X-Service-Client-Key: ${demo.clientKey}`);
    console.log(`  X-Service-Api-Key: ${demo.apiKey}   (app ${demo.appId}, for sendNotification)`);
    console.log(`Wallets to try: ${simulator.world.demoWallets.slice(0, 3).join(', ')}`);
    console.log('Live events: run `subscription { events { __typename kind symbol timestamp } }` in GraphiQL (the simulator posts signed webhooks every 10 s)\n');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    app.setDraining(true);
    await emitter?.stop();
    // WebSockets outlive the HTTP server's close(). Closed first, with 1001 Going Away, their graphql-ws
    // clients reconnect and subscribe again (to another replica) rather than see their streams complete.
    await closeGraphQLWs();
    // Open event streams never end on their own: complete them so in-flight requests can finish.
    await services.events.close();
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing connections');
      server.closeAllConnections();
    }, 10_000);
    force.unref();
    // Stop accepting; close idle keep-alive sockets so close() resolves once in-flight requests end.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await services.close();
    await simulator?.close();
    clearTimeout(force);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
