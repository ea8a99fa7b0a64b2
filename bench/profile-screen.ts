/**
 * CPU of one throughput screen, in process (the simulator in a child process, its CPU not counted),
 * driven through `yoga.fetch` 8 at a time, with the response cache on or off:
 *
 *   node --import tsx [--cpu-prof --cpu-prof-dir=/tmp/prof] bench/profile-screen.ts <mobile|wallet|markets> [requests] [cache|nocache]
 *
 * `cache` (the default) measures a warm process answering mostly from the response cache (mobile
 * rotates 20 callers, each cached privately); `nocache` the execution path every miss takes
 * (a cold key, a private or expired result). Prints CPU ms per request over the measured loop and
 * writes the window for `profile-summary.ts`.
 */
import { measureWindow } from './cpu-window.js';
import { request } from 'undici';
import { createApp } from '../src/app.js';
import { runConcurrently, startSimulatorChild } from './simulator-child.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';
import { screens, type ScreenName } from './throughput/screens.js';

const name = (process.argv[2] ?? 'markets') as ScreenName;
const requests = Number(process.argv[3] ?? 1000);
const cache = (process.argv[4] ?? 'cache') !== 'nocache';
const concurrency = 8;
/** Signed-in callers rotated over (`PROFILE_USERS`, default 20; with SIMULATOR_SUBSCRIBERS as many): 1,000 is a screen no two concurrent requests share. */
const USERS = Number(process.env['PROFILE_USERS'] ?? 20);

const { child, urls } = await startSimulatorChild();
const simUrl = new URL(urls.alerts).origin;
const getJson = async <T>(path: string): Promise<T> => (await (await request(`${simUrl}${path}`)).body.json()) as T;
const { clientKey, subscribers } = await getJson<{ clientKey: string; subscribers: { token: string }[] }>('/__sim/subscribers');
const tokens: string[] = [];
for (const { token } of subscribers) {
  if (tokens.length === USERS) break;
  const response = await request(`${urls.alerts}/v2/auth`, { headers: { authorization: `Bearer ${token}`, 'x-service-client-key': clientKey } });
  await response.body.dump();
  if (response.statusCode === 200) tokens.push(token);
}
const { wallets } = await getJson<{ wallets: { address: string; positions: number }[] }>('/__sim/wallets');
const wallet = wallets.reduce((a, b) => (b.positions > a.positions ? b : a));
const screen = screens(wallet.address).find((s) => s.name === name)!;

// Production's configuration, as the throughput bench runs the gateway; generous deadlines so a loaded machine ends no run.
const config = Object.freeze({
  ...loadConfig({ NODE_ENV: 'production', SINGLE_REPLICA: 'true', RESPONSE_CACHE: cache ? 'on' : 'off', ALERTS_URL: urls.alerts, MARKETS_URL: urls.markets, ASSETS_URL: urls.assets }),
  logLevel: 'silent' as const,
  upstreamTimeoutMs: 60_000,
  assetsTimeoutMs: 60_000,
});
const services = createServices({ config, urls, logger: createLogger(config) });
const app = createApp({ config, services });
await services.start();

const body = JSON.stringify({ query: screen.query, variables: screen.variables });
let turn = 0;
async function one(): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };
  if (screen.signedIn) {
    headers['authorization'] = `Bearer ${tokens[turn++ % tokens.length]}`;
    headers['x-service-client-key'] = clientKey;
  }
  const response = await app.yoga.fetch('http://gateway.test/graphql', { method: 'POST', headers, body });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"errors"')) throw new Error(`${response.status} ${text.slice(0, 500)}`);
}

const run = (n: number) => runConcurrently(n, concurrency, () => one());

await run(Number(process.env["WARM_REQUESTS"] ?? 200)); // JIT, asset cache, index, response cache (WARM_REQUESTS=0: a cold process)
const { cpuMs, wallMs } = await measureWindow(() => run(requests));
console.log(JSON.stringify({ screen: name, cache, requests, cpuMsPerRequest: +(cpuMs / requests).toFixed(3), rps: Math.round((requests / wallMs) * 1000) }));

await services.close();
child.kill('SIGTERM');
