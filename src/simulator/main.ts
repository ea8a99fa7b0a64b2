import { startSimulator } from './index.js';

/** `npm run simulator`: the three upstream services standalone, for pointing a gateway at by URL. */
const port = Number(process.env['SIMULATOR_PORT'] ?? 7001);
const seed = Number(process.env['SIMULATOR_SEED'] ?? 42);
const subscribers = process.env['SIMULATOR_SUBSCRIBERS'] ? Math.min(10_000, Math.max(1, Math.trunc(Number(process.env['SIMULATOR_SUBSCRIBERS'])) || 1)) : undefined;
const sim = await startSimulator({ port, seed, host: process.env['SIMULATOR_HOST'] ?? '127.0.0.1', subscribers });
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
