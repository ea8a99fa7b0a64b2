/**
 * What a server holds, idle and at its peak, for issue 29's memory target:
 *
 *   npm run build && node --import tsx bench/phases/memory.ts <gateway|gateway-off|gateway-cold|baseline> [screen] [requests] [node flags...]
 *
 * The server runs as in the throughput bench (production's command and flags, pinned to core 1, the
 * simulator with 10,000 subscribers). Prints its RSS once ready (idle: the code loaded), after one
 * request, then after `requests` (default 3,000) of the screen (default mobile1000) at 50 connections,
 * with VmHWM (the peak the bench reports) and, when the gateway answers /metrics, its memory gauges.
 * Extra arguments are node flags for the server (`--trace-gc`, `--heapsnapshot-signal=SIGUSR2`, ...);
 * `--promoted` preloads promoted.cjs and prints what the server's GCs promoted over the whole run.
 */
import { startPhaseRig } from './rig.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { requestFor, settle, type WindowState } from '../throughput/measure.js';
import { cpuMs, peakRss } from '../throughput/processes.js';
import { type ScreenName } from '../throughput/screens.js';
import { startTarget } from '../throughput/servers.js';
import { type ServerKind } from '../throughput/types.js';

const kind = (process.argv[2] ?? 'gateway') as ServerKind;
const screenName = (process.argv[3] ?? 'mobile1000') as ScreenName;
const requests = Number(process.argv[4] ?? 3000);
const promoted = process.argv.includes('--promoted');
const extraFlags = process.argv.slice(5).map((flag) => (flag === '--promoted' ? `--require=${fileURLToPath(new URL('promoted.cjs', import.meta.url))}` : flag));
// GATEWAY_ENTRY measures another build of the gateway (a copy of dist/), as profile.ts does.
const entry = process.env['GATEWAY_ENTRY'];
const CONNECTIONS = 50;

const MiB = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
function rss(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** Resident memory by kind of mapping: the node binary and other files, malloc's brk heap, anonymous mappings (V8's heap and large mallocs). */
function rssByKind(pid: number): Record<string, string> {
  const kinds: Record<string, number> = {};
  let kind = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) kind = !head[1] ? 'anon' : head[1].startsWith('/') ? 'file' : head[1];
    const rssLine = /^Rss:\s+(\d+) kB/.exec(line);
    if (rssLine) kinds[kind] = (kinds[kind] ?? 0) + Number(rssLine[1]) * 1024;
  }
  return Object.fromEntries(Object.entries(kinds).filter(([, v]) => v > 1048576).map(([k, v]) => [k, MiB(v)]));
}

const { sim, rig, screenOf } = await startPhaseRig();
rig.nodeFlags = extraFlags;
if (entry) rig.gatewayEntry = resolve(entry);
try {
  const screen = screenOf(screenName);
  const target = await startTarget(rig, kind);
  const pid = target.proc.pid;
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rss(pid);
    const idleKinds = rssByKind(pid);
    const run = async (amount: number) => {
      const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
      const result = await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: Math.min(CONNECTIONS, amount), pipelining: 1, timeout: 30, amount, requests: [requestFor(target, screen, rig.fixtures, state)] });
      if (result.non2xx > 0 || state.graphqlErrors > 0) throw new Error(`${result.non2xx} non-2xx, ${state.graphqlErrors} with errors: ${state.firstError}`);
    };
    await run(1);
    const afterOne = rss(pid);
    const cpuBefore = cpuMs(pid);
    await run(requests);
    const atEnd = rss(pid);
    const endKinds = rssByKind(pid);
    const cpuMsPerRequest = +((cpuMs(pid) - cpuBefore) / requests).toFixed(3);
    await settle(rig.simUrl, pid);
    // With `--heapsnapshot-signal=SIGUSR2` among the flags: a snapshot of what is live at the end of the load.
    if (extraFlags.includes('--heapsnapshot-signal=SIGUSR2')) {
      process.kill(pid, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 15_000));
    }
    if (promoted) {
      process.kill(pid, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 1000));
      console.log(`GCs over the run ${readFileSync(`/tmp/promoted-${pid}.json`, 'utf8')}`);
    }
    const figures = { server: kind, screen: screenName, requests, idle: MiB(idle), afterOne: MiB(afterOne), atEnd: MiB(atEnd), peak: MiB(peakRss(pid)), cpuMsPerRequest };
    console.log(JSON.stringify(figures));
    console.log(`idle by mapping ${JSON.stringify(idleKinds)}; at the end ${JSON.stringify(endKinds)}`);
    if (kind !== 'baseline') {
      const metrics = await request(`http://127.0.0.1:${target.port}/metrics`).then((r) => r.body.text());
      for (const line of metrics.split('\n')) if (/_bytes\b|_bytes\{|heap_space_size_used/.test(line) && !line.startsWith('#')) console.log(line);
    }
  } finally {
    await target.proc.stop();
  }
} finally {
  await sim.stop();
}
