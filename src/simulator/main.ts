import { startSimulator } from './index.js';

/**
 * `npm run simulator`: the three upstream services standalone, for pointing a gateway at by URL.
 * Environment (README, "The standalone simulator"): `SIMULATOR_PORT` (7001; 0 picks a free port),
 * `SIMULATOR_HOST` (127.0.0.1), `SIMULATOR_SEED` (42), `SIMULATOR_SUBSCRIBERS` (60; 1 to 10,000).
 */

/** One line on stderr, exit code 1: what a person starting the simulator needs, and no stack trace. */
function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

const port = Number(process.env['SIMULATOR_PORT'] ?? 7001);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`SIMULATOR_PORT must be a port number (0 to 65535), not "${process.env['SIMULATOR_PORT']}"`);
const seed = Number(process.env['SIMULATOR_SEED'] ?? 42);
const host = process.env['SIMULATOR_HOST'] ?? '127.0.0.1';
const subscribers = process.env['SIMULATOR_SUBSCRIBERS'] ? Math.min(10_000, Math.max(1, Math.trunc(Number(process.env['SIMULATOR_SUBSCRIBERS'])) || 1)) : undefined;
const sim = await startSimulator({ port, seed, host, subscribers }).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') fail(`Port ${port} is already in use on ${host} (set SIMULATOR_PORT to a free port)`);
  if (error.code === 'EACCES') fail(`Port ${port} cannot be bound by this user (set SIMULATOR_PORT to a free port above 1023)`);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') fail(`SIMULATOR_HOST ${host} is not an address of this machine`);
  throw error;
});
const { demo } = sim.alerts;
console.log(`Simulator listening on ${sim.url} (seed ${seed})`);
console.log(`  ALERTS_URL=${sim.urls.alerts}`);
console.log(`  MARKETS_URL=${sim.urls.markets}`);
console.log(`  ASSETS_URL=${sim.urls.assets}`);
console.log(`Demo subscriber: Authorization: Bearer ${demo.token}  X-Service-Client-Key: ${demo.clientKey}`);
console.log(`Demo app: X-Service-Api-Key: ${demo.apiKey}  appId: ${demo.appId}  wallet: ${demo.walletAddress}`);
console.log(`Controls: GET ${sim.url}/__sim/state | /__sim/requests | /__sim/subscribers | /__sim/wallets, POST ${sim.url}/__sim/latency | /__sim/fault | /__sim/reset`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void sim.close().then(() => process.exit(0));
  });
}
