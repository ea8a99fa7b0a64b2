import { randomBytes } from 'node:crypto';
import { DEMO_QUERY, DEV_HEADERS } from './demo.js';
import { createLogger } from './logger.js';
import { loadConfigOrExit, runGateway } from './lifecycle.js';
import { startEventEmitter } from './simulator/events/index.js';
import { startSimulator } from './simulator/index.js';

/**
 * The development entry (`npm start`). With no upstream URL set it starts the embedded simulator
 * in-process, wires its signed event feed to the webhook and prints demo credentials; with all three
 * set it serves them as the production entry does, with GraphiQL's demo query.
 */
async function main(): Promise<void> {
  let config = loadConfigOrExit();
  if (config.upstreams) {
    await runGateway({ config, urls: config.upstreams, logger: createLogger(config), graphiql: { defaultQuery: DEMO_QUERY, headers: { ...DEV_HEADERS } } });
    return;
  }

  const simulator = await startSimulator({ seed: config.simulatorSeed, clientKey: config.serviceClientKey ?? undefined });
  // The simulator's events reach the webhook signed; a secret of this process's own makes that work out of the box.
  const webhookSecret = config.webhookSecret ?? randomBytes(32).toString('hex');
  config = Object.freeze({ ...config, webhookSecret });
  const logger = createLogger(config);
  const { demo } = simulator.alerts;

  await runGateway({
    config,
    urls: simulator.urls,
    logger,
    graphiql: {
      defaultQuery: DEMO_QUERY,
      headers: { Authorization: `Bearer ${demo.token}`, 'X-Service-Client-Key': demo.clientKey, ...DEV_HEADERS },
    },
    onReady: (port) => {
      const emitter = startEventEmitter({
        world: simulator.world,
        targetUrl: `http://127.0.0.1:${port}/webhooks/events`,
        secret: webhookSecret,
        onDelivery: (result) => {
          if (!result.delivered) logger.warn({ ...result }, 'simulator: event webhook not delivered');
        },
      });
      console.log(`Upstreams: the embedded simulator at ${simulator.url} (seed ${config.simulatorSeed})`);
      console.log("Demo credentials (already filled in GraphiQL's headers):");
      console.log(`  Authorization: Bearer ${demo.token}`);
      console.log(`  X-Service-Client-Key: ${demo.clientKey}`);
      console.log(`  X-Service-Api-Key: ${demo.apiKey}   (app ${demo.appId}, for sendNotification)`);
      console.log(`Wallets to try: ${simulator.world.demoWallets.slice(0, 3).join(', ')}`);
      console.log(
        'Live events: run `subscription { events { __typename kind symbol timestamp } }` in GraphiQL (the simulator posts signed webhooks every 10 s)\n',
      );
      return () => emitter.stop();
    },
    onStopped: () => simulator.close(),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
