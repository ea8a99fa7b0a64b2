/**
 * A CPU profile of one server on one screen, for the phase budget (bench/PHASES.md):
 *
 *   npm run build:modules && node --import tsx bench/phases/profile.ts <mobile-cold|markets> <gateway-cold|gateway-off|baseline> [requests] [dir]
 *
 * The bare server (`bare`) answers with the bytes of the file `BODY_FILE` names (bench/phases/hits.ts writes one).
 *
 * The server runs as in the throughput bench (production's command and flags, pinned to core 1) with
 * `--cpu-prof`; 1,000 unmeasured requests warm its JIT, then `requests` (default 2,000) are measured at
 * 50 connections. Writes `<dir>/window.json` (the measured window on the monotonic clock both processes
 * share, its requests and the CPU /proc counted) beside the profile; aggregate.ts reads both.
 */
import { startPhaseRig } from './rig.js';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { requestFor, settle, type WindowState } from '../throughput/measure.js';
import { cpuMs } from '../throughput/processes.js';
import { type ScreenName } from '../throughput/screens.js';
import { startTarget } from '../throughput/servers.js';
import { type ServerKind } from '../throughput/types.js';

const screenName = (process.argv[2] ?? 'mobile-cold') as ScreenName;
const kind = (process.argv[3] ?? 'gateway-cold') as ServerKind;
const requests = Number(process.argv[4] ?? 2000);
const dir = process.argv[5] ?? `/tmp/phases/${screenName}-${kind}`;
const WARM_UP = 1000;
const CONNECTIONS = 50;

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const { sim, rig, screenOf } = await startPhaseRig();
// PROFILE_INTERVAL_US samples more often than V8's 1 ms default, for a phase too small to read otherwise.
const interval = process.env['PROFILE_INTERVAL_US'];
// GATEWAY_ENTRY profiles another build of the gateway (a copy of dist/ kept under a `dist` folder, so aggregate.ts's patterns match it).
const entry = process.env['GATEWAY_ENTRY'];
if (entry) rig.gatewayEntry = resolve(entry);
rig.nodeFlags = ['--cpu-prof', ...(interval ? [`--cpu-prof-interval=${interval}`] : []), `--cpu-prof-dir=${dir}`];
try {
  const screen = screenOf(screenName);
  const target = await startTarget(rig, kind, process.env['BODY_FILE']);
  try {
    const run = async (amount: number) => {
      const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
      const result = await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: CONNECTIONS, pipelining: 1, timeout: 30, amount, requests: [requestFor(target, screen, rig.fixtures, state)] });
      if (result.non2xx > 0 || state.graphqlErrors > 0) throw new Error(`${result.non2xx} non-2xx, ${state.graphqlErrors} with errors: ${state.firstError}`);
    };
    await run(WARM_UP);
    await settle(rig.simUrl, target.proc.pid);
    const startUs = Number(process.hrtime.bigint() / 1000n);
    const cpuBefore = cpuMs(target.proc.pid);
    await run(requests);
    // autocannon resolves on its next one-second tick: the window's tail is idle, which aggregate.ts leaves out.
    const endUs = Number(process.hrtime.bigint() / 1000n);
    const cpuMsPerRequest = (cpuMs(target.proc.pid) - cpuBefore) / requests;
    writeFileSync(join(dir, 'window.json'), JSON.stringify({ startUs, endUs, requests, cpuMsPerRequest, screen: screenName, server: kind }));
    console.log(JSON.stringify({ screen: screenName, server: kind, requests, cpuMsPerRequest: +cpuMsPerRequest.toFixed(3) }));
  } finally {
    await target.proc.stop();
  }
  console.log(`profile: ${join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile')) ?? '(none written)')}`);
} finally {
  await sim.stop();
}
