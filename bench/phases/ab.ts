/**
 * CPU per request of two gateway builds, alternated on one rig (the cut-by-cut measure of bench/PHASES.md):
 *
 *   cp -r dist node_modules/.cache/ab/old   # before a change (inside the project: its imports resolve); then change, `npm run build`, and:
 *   node --import tsx bench/phases/ab.ts <mobile-cold|markets> node_modules/.cache/ab/old/server.js dist/server.js [rounds] [requests]
 *
 * Each round starts each build afresh (gateway-cold for mobile-cold, gateway-off otherwise), warms it
 * with 1,000 requests and measures `requests` (default 2,000) at 50 connections; the rounds alternate
 * which build goes first. Prints each window and the median of each build and of the rounds' ratios.
 */
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { median } from '../numbers.js';
import { startPhaseRig } from './rig.js';
import { requestFor, settle, type WindowState } from '../throughput/measure.js';
import { cpuMs } from '../throughput/processes.js';
import { startTarget } from '../throughput/servers.js';

const [screenName = 'mobile-cold', entryA = '', entryB = '', roundsArg = '5', requestsArg = '2000'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const requests = Number(requestsArg);

const { sim, rig, screenOf } = await startPhaseRig();
const screen = screenOf(screenName);
const kind = screen.name === 'mobile-cold' ? 'gateway-cold' : 'gateway-off';

async function window(entry: string): Promise<number> {
  const target = await startTarget({ ...rig, gatewayEntry: resolve(entry) }, kind);
  try {
    const run = async (amount: number) => {
      const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
      const result = await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: 50, pipelining: 1, timeout: 30, amount, requests: [requestFor(target, screen, rig.fixtures, state)] });
      if (result.non2xx > 0 || state.graphqlErrors > 0) throw new Error(`${entry}: ${result.non2xx} non-2xx, ${state.graphqlErrors} with errors: ${state.firstError}`);
    };
    await run(1000);
    await settle(rig.simUrl, target.proc.pid);
    const before = cpuMs(target.proc.pid);
    await run(requests);
    return (cpuMs(target.proc.pid) - before) / requests;
  } finally {
    await target.proc.stop();
  }
}

try {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ([[entryA, a], [entryB, b]] as const) : ([[entryB, b], [entryA, a]] as const);
    for (const [entry, into] of order) into.push(await window(entry));
    console.log(`round ${round + 1}: A ${a.at(-1)!.toFixed(3)} ms/req, B ${b.at(-1)!.toFixed(3)} ms/req`);
  }
  const ratio = median(b.map((x, i) => x / a[i]!));
  console.log(JSON.stringify({ screen: screen.name, server: kind, requests, a: +median(a).toFixed(3), b: +median(b).toFixed(3), ratioBA: +ratio.toFixed(3) }));
} finally {
  await sim.stop();
}
