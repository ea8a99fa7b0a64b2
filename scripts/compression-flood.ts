/**
 * Compression under a flood of uncached answers (issue 33 item 8), measured:
 *
 *   npx tsx scripts/compression-flood.ts [seconds] [codings]     (defaults: 20, identity,br,gzip)
 *
 * The simulator runs in a child process, the gateway in another (as `runGateway` runs it, with
 * production's Node flags and no variable of the caller's shell, response cache off so every answer is a one-off, no rate limit, `--expose-gc`
 * so this script can ask it for a full GC over IPC). For each coding (identity, `Accept-Encoding: br`, gzip) a fresh gateway is warmed
 * and collected (RSS before), then 50 autocannon connections ask the 100-market page for `seconds`
 * while `/health` is probed every 100 ms; the gateway's RSS is sampled every 50 ms (peak), and after the
 * flood it is collected again (RSS after). Prints answers/s, `/health` p99, the gateway's CPU, peak RSS,
 * RSS before and after with what holds it (V8 heap, external and array buffers), and the event loop's
 * longest stalls as the gateway saw them (`monitorEventLoopDelay` p99 and max: what `/health` waits for,
 * without the prober's own scheduling), the bytes read per answer, the answers sent uncompressed (by /metrics) and the
 * gateway's CPU per answer by thread (event loop, GC helpers, zlib's pool); then the targets: br answers/s ≥ 0.8× identity's, `/health`
 * p99 < 100 ms, peak RSS ≤ 1.5× identity's, RSS after within 50 MB of before. As in the throughput
 * bench, the gateway is pinned to one core and the load generator, prober and simulator to the other
 * (where `taskset` is there), so the rates compare the gateway's own work; figures from a busy machine
 * are still noisy (the load average is printed).
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { request } from 'undici';
import { startSimulatorChild } from '../bench/simulator-child.js';
import { canPin, cpuMs, freePort, pin, waitReady } from '../bench/throughput/processes.js';
import { RIG_CORE, SERVER_CORE } from '../bench/throughput/types.js';
import { PRODUCTION_COMMAND } from '../bench/throughput/servers.js';

const MiB = 1024 * 1024;
/** Linux reports thread CPU in USER_HZ ticks, 100 a second on every architecture it runs on. */
const CLOCK_TICKS = 100;
const round = (n: number) => Math.round(n * 1000) / 1000;

/** Node's flags of `npm run start:prod` (the young generation's cap): what the young generation holds after a flood depends on them. */
const NODE_FLAGS = PRODUCTION_COMMAND.split(' ').filter((arg) => arg.startsWith('--'));
/** More flags for the gateway from `FLOOD_NODE_FLAGS` (`--trace-gc`, `--cpu-prof`: what a stall is made of). */
const EXTRA_FLAGS = (process.env['FLOOD_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);

/** What the gateway process reports on request: its memory after a full GC, and its loop's stalls since the last report. */
interface Collected {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

if (process.argv.includes('--serve')) {
  // The gateway process: the production lifecycle, plus a full GC and a report on the parent's request.
  const { loadConfigOrExit, runGateway } = await import('../src/lifecycle.js');
  const { createLogger } = await import('../src/logger.js');
  const config = loadConfigOrExit();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  process.on('message', (message) => {
    if (message !== 'gc') return;
    const gc = (globalThis as { gc?: () => void }).gc!;
    gc();
    gc();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const report: Collected = { rss, heapUsed, external, arrayBuffers, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 };
    loop.reset();
    process.send!(report);
  });
  await runGateway({ config, urls: config.upstreams!, logger: createLogger(config) });
} else {
  await main(Number(process.argv[2] ?? 20), (process.argv[3] ?? 'identity,br,gzip').split(','));
}

interface Flood {
  coding: string;
  answersPerSecond: number;
  non2xx: number;
  healthP99Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  cpuCores: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  rssAfterMiB: number;
  /** After the flood and a full GC: V8's heap in use, and memory outside it (external includes array buffers). */
  heapAfterMiB: number;
  externalAfterMiB: number;
  /** Bytes the load generator read per answer (headers included): how much of the flood went compressed. */
  bytesPerAnswer: number;
  /** The gateway's CPU in the flood by thread name (the event loop is `MainThread`, the GC helpers `V8Worker`, zlib's pool `libuv-worker`), ms per answer. */
  threadMsPerAnswer: Record<string, number>;
  /** Answers the gateway sent uncompressed in the flood, by reason, as its /metrics counts them. */
  uncompressed: Record<string, number>;
}

async function main(seconds: number, codings: string[]): Promise<void> {
  const sim = await startSimulatorChild();
  const pinned = canPin();
  if (pinned) [process.pid, sim.child.pid!].forEach((pid) => pin(pid, RIG_CORE));
  console.log(pinned ? `gateway pinned to core ${SERVER_CORE}, load generator and simulator to core ${RIG_CORE}` : 'NOT pinned (no taskset or one core)');
  try {
    const query = readFileSync(new URL('../test/operations/MarketsPage.graphql', import.meta.url), 'utf8');
    const body = JSON.stringify({ query, variables: { first: 100 } });
    console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; Node ${process.version}, source ${revision()}`);
    const rows: Flood[] = [];
    for (const coding of codings) rows.push(await flood(sim.urls, body, coding, seconds));
    for (const row of rows) {
      console.log(
        `${row.coding.padEnd(8)} ${row.answersPerSecond.toFixed(0).padStart(5)} answers/s (${row.non2xx} not 2xx), /health p99 ${row.healthP99Ms.toFixed(1)} ms ` +
          `(loop stall p99 ${row.loopP99Ms.toFixed(1)} ms, max ${row.loopMaxMs.toFixed(1)} ms), ${row.cpuCores.toFixed(2)} cores, RSS ${row.rssBeforeMiB.toFixed(0)} MiB before, ` +
          `${row.peakRssMiB.toFixed(0)} MiB peak, ${row.rssAfterMiB.toFixed(0)} MiB after GC (heap ${row.heapAfterMiB.toFixed(0)}, external ${row.externalAfterMiB.toFixed(0)})`,
      );
      console.log(`         ${row.bytesPerAnswer.toFixed(0)} bytes/answer; CPU ms/answer by thread: ${JSON.stringify(row.threadMsPerAnswer)}; uncompressed: ${JSON.stringify(row.uncompressed)}`);
    }
    console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const identity = rows.find((row) => row.coding === 'identity');
    for (const row of rows.filter((r) => r.coding !== 'identity')) {
      const targets = {
        [`${row.coding} answers/s ≥ 0.8× identity`]: identity && row.answersPerSecond >= 0.8 * identity.answersPerSecond,
        [`/health p99 < 100 ms (${row.coding})`]: row.healthP99Ms < 100,
        [`${row.coding} peak RSS ≤ 1.5× identity`]: identity && row.peakRssMiB <= 1.5 * identity.peakRssMiB,
        [`RSS after within 50 MB of before (${row.coding})`]: Math.abs(row.rssAfterMiB - row.rssBeforeMiB) * MiB <= 50_000_000,
      };
      for (const [target, met] of Object.entries(targets)) console.log(`${met ? 'met    ' : 'NOT met'} ${target}`);
      // On a core shared with other processes answers/s follow each process's share of it; the CPU an answer costs does not.
      if (identity) console.log(`        ${row.coding}: identity's CPU per answer ÷ ${row.coding}'s: ${(cpuPerAnswer(identity) / cpuPerAnswer(row)).toFixed(2)} (its answers/s ÷ identity's on a core of its own)`);
    }
    console.log(`RESULT ${JSON.stringify(rows)}`);
  } finally {
    sim.child.kill('SIGTERM');
  }
}

async function flood(urls: Record<'alerts' | 'markets' | 'assets', string>, body: string, coding: string, seconds: number): Promise<Flood> {
  const port = await freePort();
  // The caller's shell passes nothing else (OTEL_*, NODE_OPTIONS or a cache setting would change what is measured).
  const env = { PATH: process.env['PATH'], HOME: process.env['HOME'], ALERTS_URL: urls.alerts, MARKETS_URL: urls.markets, ASSETS_URL: urls.assets, PORT: String(port), RESPONSE_CACHE: 'off', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' };
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], { env, execArgv: ['--expose-gc', ...NODE_FLAGS, ...EXTRA_FLAGS, '--import', 'tsx'], stdio: ['ignore', EXTRA_FLAGS.length > 0 ? 'inherit' : 'ignore', 'inherit', 'ipc'] });
  const proc = { pid: child.pid!, child, stderr: () => '', stop: async () => {} };
  try {
    await waitReady(proc, `http://127.0.0.1:${port}/health`);
    // Forked from a pinned process it starts on the rig's core: every thread of it moves to its own.
    if (canPin()) pin(child.pid!, SERVER_CORE);
    const url = `http://127.0.0.1:${port}/graphql`;
    const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'accept-encoding': coding };
    // Warm-up: the JIT and the market index, not measured.
    await autocannon({ url, connections: 10, amount: 300, method: 'POST', headers, body });
    const before = await collected(child);
    const uncompressedBefore = await uncompressed(port);

    let peakRss = before.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(child.pid!))), 50);
    const healthMs: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const started = performance.now();
        const response = await request(`http://127.0.0.1:${port}/health`);
        await response.body.dump();
        healthMs.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const cpuBefore = cpuMs(child.pid!);
    const threadsBefore = threadCpuMs(child.pid!);
    const result = await autocannon({ url, connections: 50, duration: seconds, method: 'POST', headers, body });
    const cpu = cpuMs(child.pid!) - cpuBefore;
    const threadsAfter = threadCpuMs(child.pid!);
    probing = false;
    await prober;
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, 1_000));
    const after = await collected(child);
    const uncompressedAfter = await uncompressed(port);
    healthMs.sort((a, b) => a - b);
    return {
      coding,
      answersPerSecond: result['2xx'] / result.duration,
      non2xx: result.non2xx,
      healthP99Ms: healthMs[Math.min(healthMs.length - 1, Math.floor(healthMs.length * 0.99))] ?? NaN,
      loopP99Ms: after.loopP99Ms,
      loopMaxMs: after.loopMaxMs,
      cpuCores: cpu / (result.duration * 1000),
      rssBeforeMiB: before.rss / MiB,
      peakRssMiB: peakRss / MiB,
      rssAfterMiB: after.rss / MiB,
      heapAfterMiB: after.heapUsed / MiB,
      externalAfterMiB: after.external / MiB,
      bytesPerAnswer: result.throughput.total / Math.max(result.requests.total, 1),
      threadMsPerAnswer: Object.fromEntries([...threadsAfter].map(([name, ms]) => [name, round((ms - (threadsBefore.get(name) ?? 0)) / Math.max(result['2xx'], 1))])),
      uncompressed: Object.fromEntries(Object.entries(uncompressedAfter).map(([reason, n]) => [reason, n - (uncompressedBefore[reason] ?? 0)])),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** The gateway's memory after a full GC it runs on request, and its loop's stalls since the last request. */
function collected(child: ChildProcess): Promise<Collected> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Collected));
    child.send('gc');
  });
}

/** Answers the gateway sent uncompressed so far, by reason (`gateway_uncompressed_answers_total` on its /metrics). */
async function uncompressed(port: number): Promise<Record<string, number>> {
  const text = await (await request(`http://127.0.0.1:${port}/metrics`)).body.text();
  return Object.fromEntries([...text.matchAll(/^gateway_uncompressed_answers_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** The source measured: its commit, `-dirty` with changes not committed. */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** The gateway's CPU per answer in the flood, every thread, ms. */
function cpuPerAnswer(row: Flood): number {
  return Object.values(row.threadMsPerAnswer).reduce((sum, ms) => sum + ms, 0);
}

/** CPU ms so far of each thread of `pid`, summed by thread name (`/proc/<pid>/task/<tid>/stat`, utime + stime). */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
  }
  return byName;
}

function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}
