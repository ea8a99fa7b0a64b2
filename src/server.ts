import { createLogger } from './logger.js';
import { fail, loadConfigOrExit, runGateway } from './lifecycle.js';

/**
 * The production entry (`node dist/server.js`, the image's command): real upstreams or nothing. It never
 * imports the embedded simulator, its event emitter or the demo banner; `dev.ts` (`npm start`) does.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.upstreams) {
    fail(
      'Configuration error: ALERTS_URL, MARKETS_URL, ASSETS_URL: required by `node dist/server.js`; `npm start` runs the embedded simulator for development',
    );
  }
  await runGateway({ config, urls: config.upstreams, logger: createLogger(config) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
