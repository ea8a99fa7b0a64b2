/**
 * The throughput mode of `npm run bench`: the built gateway against a hand-written baseline and a bare
 * server, each in its own process pinned to one core, in front of the standalone simulator, under
 * autocannon at 50 connections. See bench/README.md ("Throughput").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { canPin, cpuMs, freePort, peakRss, pin, startNode, waitReady, type Proc } from './processes.js';
import { MANY_USERS, screens, type Screen, type ScreenName } from './screens.js';
import { loadConfig } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run start:prod` (the image's command too): node's flags and the entry, run as production runs them. */
const PRODUCTION_COMMAND = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod']!;
const PRODUCTION_ARGS = PRODUCTION_COMMAND.split(' ')
  .slice(1)
  .map((arg) => (arg.endsWith('.js') ? join(ROOT, arg) : arg));

export interface ThroughputOptions {
  /** Seconds of each warm window. */
  warmSeconds: number;
  /** Requests of each cold window (the first requests of a fresh process). */
  coldRequests: number;
  connections: number;
  /** Upstream latencies to run at, in ms (every service, no jitter). */
  latencies: number[];
  /** Run `npm run build` first (the gateway runs from dist/). */
  build: boolean;
  /**
   * Rounds of each screen and latency: the servers in turn (gateway, gateway-off, baseline), a fresh
   * process each, then again. The report gives each figure's median over the rounds and each ratio's
   * median over the rounds' pairs (so a comparison holds while the machine's speed drifts), with its range.
   */
  rounds: number;
}

export const THROUGHPUT_DEFAULTS: ThroughputOptions = { warmSeconds: 5, coldRequests: 100, connections: 50, latencies: [0, 20], build: true, rounds: 3 };

/** How many subscribers' tokens the signed-in screens rotate over at most (the simulator is started with as many). */
const SUBSCRIBERS = MANY_USERS;
/** Cores: the load generator and the simulator share one, the measured server has the other to itself. */
const RIG_CORE = 0;
const SERVER_CORE = 1;

/** `gateway`: response cache on (the default); `gateway-off`: RESPONSE_CACHE=off, every request executes. */
type ServerKind = 'gateway' | 'gateway-off' | 'baseline' | 'bare';
type Phase = 'cold' | 'warm';

export interface ThroughputRow {
  screen: ScreenName;
  latencyMs: number;
  phase: Phase;
  server: ServerKind;
  /** Which round of the screen and latency (1-based). */
  round: number;
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  /** Upstream calls per request, by service. */
  upstream: Record<string, number>;
  peakRssBytes: number;
  non2xx: number;
  /** 2xx responses whose body carries `errors`. */
  graphqlErrors: number;
  /** Socket errors and timeouts of the load generator. */
  failures: number;
  /** The first error body seen, shortened. */
  firstError: string | null;
  /**
   * Response cache executions per cache key per TTL window (gateway with its cache on): the growth of
   * `gateway_executions_total{shared="false"}` ÷ (distinct keys × TTL windows the window spans); 1.0 is
   * no stampede. null when the gateway does not count them.
   */
  executionsPerKeyWindow: number | null;
}

interface Fixtures {
  clientKey: string;
  tokens: string[];
  wallet: { address: string; positions: number };
}

interface Rig {
  simUrl: string;
  /** bench/throughput/baseline.ts compiled to one JavaScript file. */
  baselineJs: string;
  env: NodeJS.ProcessEnv;
  fixtures: Fixtures;
  pinned: boolean;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await request(url);
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${await response.body.text()}`);
  return (await response.body.json()) as T;
}

async function postJson(url: string, body: unknown): Promise<void> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`POST ${url}: ${response.statusCode}`);
}

async function setLatency(simUrl: string, ms: number): Promise<void> {
  for (const service of ['alerts', 'markets', 'assets']) {
    await postJson(`${simUrl}/__sim/latency`, { target: { service }, latency: ms > 0 ? { fixedMs: ms } : null });
  }
}

async function upstreamCounts(simUrl: string): Promise<Record<string, number>> {
  const byRoute = await getJson<Record<string, number>>(`${simUrl}/__sim/requests`);
  const out: Record<string, number> = { alerts: 0, markets: 0, assets: 0 };
  for (const [key, n] of Object.entries(byRoute)) {
    const service = key.split(' ')[0]!;
    out[service] = (out[service] ?? 0) + n;
  }
  return out;
}

/** 20 subscribers whose tokens the alerts service accepts, and the wallet with the most positions. */
async function loadFixtures(simUrl: string): Promise<Fixtures> {
  const { clientKey, subscribers } = await getJson<{ clientKey: string; subscribers: { token: string }[] }>(`${simUrl}/__sim/subscribers`);
  const tokens: string[] = [];
  for (const { token } of subscribers) {
    if (tokens.length === SUBSCRIBERS) break;
    const response = await request(`${simUrl}/alerts/v2/auth`, { headers: { authorization: `Bearer ${token}`, 'x-service-client-key': clientKey } });
    await response.body.dump();
    if (response.statusCode === 200) tokens.push(token);
  }
  if (tokens.length < SUBSCRIBERS) throw new Error(`The simulator has ${tokens.length} usable subscriber tokens; the signed-in screens need ${SUBSCRIBERS}.`);
  const { wallets } = await getJson<{ wallets: { address: string; positions: number }[] }>(`${simUrl}/__sim/wallets`);
  return { clientKey, tokens, wallet: wallets[0]! };
}

// ---------------------------------------------------------------------------------------------
// One measured window
// ---------------------------------------------------------------------------------------------

interface Target {
  kind: ServerKind;
  proc: Proc;
  port: number;
}

/** The request autocannon sends for a screen to a server. */
function requestFor(target: Target, screen: Screen, fixtures: Fixtures, state: WindowState): autocannon.Request {
  const graphql = JSON.stringify({ query: screen.query, variables: screen.variables });
  const base: autocannon.Request =
    target.kind === 'baseline'
      ? { method: 'POST', path: screen.baselinePath, body: JSON.stringify(screen.baselineBody) }
      : { method: 'POST', path: '/graphql', body: graphql };
  base.headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  let turn = 0;
  const users = Math.min(screen.users ?? 20, fixtures.tokens.length);
  if (screen.signedIn) {
    base.setupRequest = (req) => {
      const token = fixtures.tokens[turn++ % users]!;
      return { ...req, headers: { ...req.headers, authorization: `Bearer ${token}`, 'x-service-client-key': fixtures.clientKey } };
    };
  }
  base.onResponse = (status, body) => {
    state.lastResponseAt = performance.now();
    const ok = status >= 200 && status < 300;
    const withErrors = ok && body.includes('"errors"');
    if (withErrors) state.graphqlErrors++;
    if ((!ok || withErrors) && state.firstError === null) state.firstError = `HTTP ${status}: ${body.slice(0, 300)}`;
    if (ok && !withErrors) state.lastGoodBody = body;
  };
  return base;
}

interface WindowState {
  /** When the window's last response arrived (performance.now()). */
  lastResponseAt: number;
  graphqlErrors: number;
  firstError: string | null;
  lastGoodBody: string | null;
}

/** Waits (at most 5 s) until the server is idle: no upstream call and at most one clock tick of CPU over 200 ms. */
async function settle(simUrl: string, pid: number): Promise<void> {
  const total = async () => Object.values(await upstreamCounts(simUrl)).reduce((a, b) => a + b, 0);
  let calls = await total();
  let cpu = cpuMs(pid);
  for (let i = 0; i < 25; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const [nowCalls, nowCpu] = [await total(), cpuMs(pid)];
    if (nowCalls === calls && nowCpu - cpu <= 10) return;
    [calls, cpu] = [nowCalls, nowCpu];
  }
}

/** Requests per connection of the unmeasured warm-up before a warm window; its rate sizes the window. */
const WARM_UP_PER_CONNECTION = 4;

/**
 * One window of `amount` requests: every request sent is answered inside the window, so CPU and upstream
 * calls divide exactly. A warm window is first sized by an unmeasured warm-up.
 */
async function measure(rig: Rig, target: Target, screen: Screen, latencyMs: number, phase: Phase, round: number, options: ThroughputOptions): Promise<{ row: ThroughputRow; body: string | null }> {
  const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
  const load = (run: { amount: number } | { duration: number }, s: WindowState) =>
    autocannon({
      url: `http://127.0.0.1:${target.port}`,
      connections: options.connections,
      pipelining: 1,
      timeout: 30,
      ...run,
      requests: [requestFor(target, screen, rig.fixtures, s)],
    });
  let amount = options.coldRequests;
  if (phase === 'warm') {
    const warmUpStart = performance.now();
    const warmUpState: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
    const warmUp = await load({ amount: WARM_UP_PER_CONNECTION * options.connections }, warmUpState);
    const rate = warmUp.requests.total / Math.max(0.01, ((warmUpState.lastResponseAt || performance.now()) - warmUpStart) / 1000);
    amount = Math.min(100_000, Math.max(2 * options.connections, Math.round(rate * options.warmSeconds)));
  }
  await settle(rig.simUrl, target.proc.pid);
  const executionsBefore = target.kind === 'gateway' ? await executionsCount(target.port) : null;
  const countsBefore = await upstreamCounts(rig.simUrl);
  const cpuBefore = cpuMs(target.proc.pid);
  const startedAt = performance.now();
  const result = await load({ amount }, state);
  // autocannon ends an `amount` run on its next one-second tick, so neither its `duration` nor the time
  // until it resolves is the window's: the window ends with its last response.
  const seconds = ((state.lastResponseAt || performance.now()) - startedAt) / 1000;
  const cpuAfter = cpuMs(target.proc.pid);
  const countsAfter = await upstreamCounts(rig.simUrl);
  const executionsAfter = executionsBefore === null ? null : await executionsCount(target.port);
  const requests = result.requests.total;
  let executionsPerKeyWindow: number | null = null;
  if (executionsBefore !== null && executionsAfter !== null) {
    const keys = screen.signedIn ? Math.min(requests, screen.users ?? 20, rig.fixtures.tokens.length) : 1;
    const windows = Math.max(1, Math.ceil((seconds * 1000) / ttlOf(screen, rig.env)));
    executionsPerKeyWindow = (executionsAfter - executionsBefore) / (keys * windows);
  }
  const per = (n: number) => (requests > 0 ? n / requests : NaN);
  return {
    body: state.lastGoodBody,
    row: {
      screen: screen.name,
      latencyMs,
      phase,
      server: target.kind,
      round,
      requests,
      seconds,
      rps: requests / seconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpuMsPerRequest: per(cpuAfter - cpuBefore),
      upstream: Object.fromEntries(Object.keys(countsAfter).map((s) => [s, per((countsAfter[s] ?? 0) - (countsBefore[s] ?? 0))])),
      peakRssBytes: peakRss(target.proc.pid),
      non2xx: result.non2xx,
      graphqlErrors: state.graphqlErrors,
      failures: result.errors + result.timeouts,
      firstError: state.firstError,
      executionsPerKeyWindow,
    },
  };
}

/** The gateway's count of query executions that ran (`gateway_executions_total{shared="false"}`: not those that shared one in flight), or null when it has none. */
async function executionsCount(port: number): Promise<number | null> {
  try {
    const response = await request(`http://127.0.0.1:${port}/metrics`);
    const text = await response.body.text();
    if (response.statusCode !== 200) return null;
    let total: number | null = null;
    for (const line of text.split('\n')) {
      if (!line.startsWith('gateway_executions_total{shared="false"}')) continue;
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (Number.isFinite(value)) total = (total ?? 0) + value;
    }
    return total;
  } catch {
    return null;
  }
}

/** The response cache TTL of a screen's result under the gateway's configuration: the private TTL when signed in, else the public data's shortest. */
function ttlOf(screen: Screen, env: NodeJS.ProcessEnv): number {
  const ttl = loadConfig(env).responseCacheTtlMs;
  return screen.signedIn ? ttl.private : Math.min(ttl.markets, ttl.prices, ttl.metadata);
}

// ---------------------------------------------------------------------------------------------
// The servers
// ---------------------------------------------------------------------------------------------

async function startTarget(rig: Rig, kind: ServerKind, bodyFile?: string): Promise<Target> {
  const port = await freePort();
  const core = rig.pinned ? SERVER_CORE : null;
  let proc: Proc;
  let health: string;
  if (kind === 'gateway' || kind === 'gateway-off') {
    // One load generator is one caller: the per-caller rate limit (a guard against one client flooding) is off unless the bench's environment sets it.
    const gatewayEnv = { RATE_LIMIT_PER_MINUTE: '0', ...rig.env, PORT: String(port), ...(kind === 'gateway-off' ? { RESPONSE_CACHE: 'off' } : {}) };
    proc = startNode(PRODUCTION_ARGS, gatewayEnv, core);
    health = `http://127.0.0.1:${port}/health`;
  } else if (kind === 'baseline') {
    // Plain JavaScript, as the gateway runs from dist/: no TypeScript loader compiling in the measured process.
    proc = startNode([rig.baselineJs], { ...rig.env, PORT: String(port) }, core);
    health = `http://127.0.0.1:${port}/health`;
  } else {
    proc = startNode(['--import', 'tsx', join(ROOT, 'bench/throughput/bare.ts')], { ...rig.env, PORT: String(port), BODY_FILE: bodyFile }, core);
    health = `http://127.0.0.1:${port}/`;
  }
  try {
    await waitReady(proc, health);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { kind, proc, port };
}

/** A fresh process: its first `coldRequests` requests (cold), then a warm window. */
async function coldAndWarm(rig: Rig, kind: ServerKind, screen: Screen, latencyMs: number, round: number, options: ThroughputOptions, log: (row: ThroughputRow) => void) {
  const target = await startTarget(rig, kind);
  try {
    const cold = await measure(rig, target, screen, latencyMs, 'cold', round, options);
    log(cold.row);
    const warm = await measure(rig, target, screen, latencyMs, 'warm', round, options);
    log(warm.row);
    return { rows: [cold.row, warm.row], body: warm.body ?? cold.body };
  } finally {
    await target.proc.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

export interface ThroughputRun {
  rows: ThroughputRow[];
  markdown: string;
}

export async function runThroughput(given: ThroughputOptions = THROUGHPUT_DEFAULTS): Promise<ThroughputRun> {
  const rounds = Math.floor(Number(process.env['BENCH_ROUNDS'] ?? given.rounds));
  const options: ThroughputOptions = { ...given, rounds: Number.isFinite(rounds) && rounds >= 1 ? rounds : given.rounds };
  const started = Date.now();
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' / ');
  const loadBefore1 = loadavg()[0] ?? 0;
  if (options.build) {
    console.log('Building the gateway (npm run build) ...');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  const pinned = canPin();
  // This process is the load generator: it shares a core with the simulator, the measured server has the other.
  if (pinned) pin(process.pid, RIG_CORE);

  const simPort = await freePort();
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  delete baseEnv['REDIS_URL'];
  const sim = startNode(
    ['--import', 'tsx', join(ROOT, 'src/simulator/main.ts')],
    { ...baseEnv, SIMULATOR_PORT: String(simPort), SIMULATOR_SEED: '42', SIMULATOR_SUBSCRIBERS: String(SUBSCRIBERS) },
    pinned ? RIG_CORE : null,
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const rows: ThroughputRow[] = [];
  const notes: string[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'bench-bare-'));
  try {
    await waitReady(sim, `${simUrl}/__sim/state`);
    const fixtures = await loadFixtures(simUrl);
    const env: NodeJS.ProcessEnv = {
      ...baseEnv,
      ALERTS_URL: `${simUrl}/alerts`,
      MARKETS_URL: `${simUrl}/markets`,
      ASSETS_URL: `${simUrl}/assets`,
    };
    // Inside the project's node_modules, so that the bundle's external packages (undici) resolve from the project.
    const baselineJs = join(ROOT, 'node_modules/.cache/bench/baseline.mjs');
    execFileSync(join(ROOT, 'node_modules/.bin/esbuild'), [join(ROOT, 'bench/throughput/baseline.ts'), '--bundle', '--platform=node', '--format=esm', '--packages=external', `--outfile=${baselineJs}`], { cwd: ROOT, stdio: 'ignore' });
    const rig: Rig = { simUrl, baselineJs, env, fixtures, pinned };
    const only = (process.env['BENCH_SCREENS'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const all = screens(fixtures.wallet.address).filter((s) => only.length === 0 || only.includes(s.name));
    const log = (row: ThroughputRow) => console.log(consoleLine(row));
    console.log(
      `Throughput: ${options.connections} connections, cold = first ${options.coldRequests} requests of a fresh process, warm = ${WARM_UP_PER_CONNECTION * options.connections} requests unmeasured then ≈ ${options.warmSeconds} s of requests; ` +
        `servers ${pinned ? `pinned to core ${SERVER_CORE}, simulator and load generator to core ${RIG_CORE}` : 'NOT pinned (no taskset or one core)'}.`,
    );
    console.log(`Wallet screen: ${fixtures.wallet.address} (${fixtures.wallet.positions} positions, the simulator's largest wallet).\n`);

    const bodies = new Map<ScreenName, string>();
    const latencies = process.env['BENCH_LATENCIES'] ? process.env['BENCH_LATENCIES'].split(',').map(Number).filter((n) => Number.isFinite(n) && n >= 0) : options.latencies;
    for (const latencyMs of latencies) {
      await setLatency(simUrl, latencyMs);
      for (const screen of all) {
        for (let round = 1; round <= options.rounds; round++) {
          for (const kind of ['gateway', 'gateway-off', 'baseline'] as const) {
            const run = await coldAndWarm(rig, kind, screen, latencyMs, round, options, log);
            rows.push(...run.rows);
            if (kind === 'baseline' && run.body && !bodies.has(screen.name)) bodies.set(screen.name, run.body);
          }
        }
      }
    }
    // The ceiling: the same bytes as the baseline's answer, from a server that does nothing else.
    await setLatency(simUrl, 0);
    for (const screen of all) {
      const body = bodies.get(screen.name) ?? '{}';
      const file = join(tmp, `${screen.name}.json`);
      writeFileSync(file, body);
      for (let round = 1; round <= options.rounds; round++) {
        const target = await startTarget(rig, 'bare', file);
        try {
          const warm = await measure(rig, target, screen, 0, 'warm', round, options);
          log(warm.row);
          rows.push(warm.row);
        } finally {
          await target.proc.stop();
        }
      }
      notes.push(`Bare server body for ${screen.name}: ${Buffer.byteLength(body)} bytes (the baseline's answer).`);
    }
    for (const row of rows) {
      if (row.firstError) notes.push(`First error, ${row.server} ${row.screen} ${row.phase} at ${row.latencyMs} ms: \`${row.firstError.replace(/`/g, "'").slice(0, 240)}\``);
    }
    const markdown = throughputMarkdown(rows, {
      options,
      pinned,
      loadBefore,
      loadAfter: loadavg().map((l) => l.toFixed(2)).join(' / '),
      seconds: Math.round((Date.now() - started) / 1000),
      busy: Math.max(loadBefore1, loadavg()[0] ?? 0) > cpus().length,
      wallet: fixtures.wallet,
      notes,
    });
    return { rows, markdown };
  } finally {
    await sim.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const mib = (bytes: number) => `${fixed(bytes / (1024 * 1024), 0)} MiB`;
const upstreamText = (u: Record<string, number>) =>
  Object.entries(u)
    .filter(([, n]) => n > 0.005)
    .map(([s, n]) => `${s} ${fixed(n, 2)}`)
    .join(' · ') || '0';

function consoleLine(r: ThroughputRow): string {
  return (
    `  ${r.screen.padEnd(7)} ${String(r.latencyMs).padStart(2)} ms round ${r.round} ${r.phase} ${r.server.padEnd(8)} ` +
    `${fixed(r.rps, 0).padStart(6)} req/s  p50 ${fixed(r.p50, 0)} ms  p99 ${fixed(r.p99, 0)} ms  CPU ${fixed(r.cpuMsPerRequest, 2)} ms/req  ` +
    `upstream/req ${upstreamText(r.upstream)}  peak RSS ${mib(r.peakRssBytes)}  ` +
    `${r.server === 'gateway' ? `executions/key/TTL ${r.executionsPerKeyWindow === null ? 'n/a' : fixed(r.executionsPerKeyWindow, 2)}  ` : ''}(${r.requests} req, ${r.non2xx} non-2xx, ${r.graphqlErrors} with errors, ${r.failures} failed)`
  );
}

interface ReportContext {
  options: ThroughputOptions;
  pinned: boolean;
  loadBefore: string;
  loadAfter: string;
  seconds: number;
  /** Other work competed for the cores (load average above the core count). */
  busy: boolean;
  wallet: { address: string; positions: number };
  notes: string[];
}

export const THROUGHPUT_HEADING = '## Throughput: gateway vs hand-written baseline vs bare server';

export function throughputMarkdown(rows: readonly ThroughputRow[], ctx: ReportContext): string {
  // One line per screen, latency, phase and server: each figure the median of its rounds.
  const groups = new Map<string, ThroughputRow[]>();
  for (const r of rows) {
    const key = `${r.screen}|${r.server === 'bare' ? '' : r.latencyMs}|${r.phase}|${r.server}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const roundOf = (r: ThroughputRow, server: ServerKind) =>
    rows.find((b) => b.server === server && b.screen === r.screen && b.latencyMs === r.latencyMs && b.phase === r.phase && b.round === r.round);
  /** A ratio's median over the rounds' pairs (each round's gateway against that round's baseline), with its range. */
  const pairs = (group: readonly ThroughputRow[], figure: (r: ThroughputRow) => number) => {
    const ratios = group.flatMap((r) => {
      const base = roundOf(r, 'baseline');
      return base ? [figure(r) / figure(base)] : [];
    });
    if (ratios.length === 0) return null;
    const range = ratios.length > 1 ? ` (${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)})` : '';
    return `${fixed(median(ratios), 2)}×${range}`;
  };
  const bareRps = (screen: ScreenName) => {
    const bare = rows.filter((b) => b.server === 'bare' && b.screen === screen).map((b) => b.rps);
    return bare.length > 0 ? median(bare) : null;
  };
  const versus = (group: readonly ThroughputRow[], rps: number): string => {
    const r = group[0]!;
    if (r.server === 'bare') return 'ceiling';
    const parts: string[] = [];
    if (r.server === 'gateway' || r.server === 'gateway-off') {
      const [req, cpu, rss] = [pairs(group, (x) => x.rps), pairs(group, (x) => x.cpuMsPerRequest), pairs(group, (x) => x.peakRssBytes)];
      if (req && cpu && rss) parts.push(`${req} req/s, ${cpu} CPU, ${rss} peak RSS`);
    }
    const bare = bareRps(r.screen);
    if (bare && r.phase === 'warm') parts.push(`${fixed((100 * rps) / bare, 0)} % of bare`);
    return parts.join('; ');
  };
  const cpu = cpus();
  const lines = [
    THROUGHPUT_HEADING,
    '',
    `- Date: ${new Date().toISOString()}; run time ${ctx.seconds} s`,
    `- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, Node ${process.version}; load average (1 / 5 / 15 min) ${ctx.loadBefore} before, ${ctx.loadAfter} after`,
    `- Each server in its own process (${ctx.pinned ? `\`taskset -c ${SERVER_CORE}\`` : 'not pinned'}): the gateway as built and started in production (\`${PRODUCTION_COMMAND}\`, NODE_ENV=production` +
      `${process.env['MAX_QUERY_COST'] ? `, MAX_QUERY_COST=${process.env['MAX_QUERY_COST']}` : ', MAX_QUERY_COST unset'}` +
      `, RATE_LIMIT_PER_MINUTE=${process.env['RATE_LIMIT_PER_MINUTE'] ?? '0'}: one load generator is one caller), the hand-written baseline ` +
      '(bench/throughput/baseline.ts: undici `request` on one Agent + `Promise.all`, no GraphQL, no cache), a bare node server returning the baseline\'s answer as a fixed body.',
    `- Upstreams: the simulator standalone (\`node --import tsx src/simulator/main.ts\`, seed 42: the image ships no simulator) ${ctx.pinned ? `on core ${RIG_CORE} with the load generator` : ''}; latency set per run through \`/__sim/latency\` (every call, no jitter).`,
    `- Load: autocannon, ${ctx.options.connections} connections. **cold** = the first ${ctx.options.coldRequests} requests of a fresh process (empty caches, unwarmed JIT); ` +
      `**warm** = then ${WARM_UP_PER_CONNECTION * ctx.options.connections} requests unmeasured, then as many requests as their rate makes in ${ctx.options.warmSeconds} s (at least ${2 * ctx.options.connections}), on the same process. ` +
      'Every window is a fixed number of requests, all answered inside it; the server is left to go idle before each.',
    `- Rounds: ${ctx.options.rounds} of each screen and latency, the servers in turn (gateway, gateway-off, baseline), a fresh process each; the bare server ${ctx.options.rounds} times per screen at the end. ` +
      'Each figure below is the median of its rounds (Requests, non-2xx and errors: their sum); each ratio to the baseline is the median of the rounds\' pairs (each round\'s server against the same round\'s baseline), its range in brackets; the share of bare is the median req/s over the bare server\'s median.',
    `- Screens: **mobile** = \`MobileHome\` rotating 20 subscribers' tokens; **mobile1000** = the same over ${MANY_USERS} distinct subscribers (most requests miss the response cache); **wallet** = 50 positions with markets, providers and token assets of ${ctx.wallet.address} ` +
      `(the simulator's largest wallet: ${ctx.wallet.positions} positions, so the page holds ${ctx.wallet.positions}); **markets** = a page of 100 markets selecting every kind's fields and token assets (bench/throughput/screens.ts).`,
    ...(ctx.busy ? [`- **The machine was shared** with other work during this run (load average above its ${cpu.length} cores): absolute figures are low and noisy; compare rows of the same run.`] : []),
    '- CPU ms/req: the server process\'s utime + stime (/proc/<pid>/stat) over the window ÷ requests answered. Upstream calls/req: the simulator\'s counters over the window ÷ requests. Peak RSS: VmHWM of the process at the end of the window.',
    '',
    '- **gateway** = response cache on; **gateway-off** = `RESPONSE_CACHE=off` (every request executes). **Executions/key/TTL** = growth of the gateway\'s `gateway_executions_total{shared="false"}` over the window ÷ (distinct cache keys × TTL windows the window spans; the private TTL for signed-in screens, else the public data\'s shortest); 1.00 = each key executed once per window, more = a stampede; n/a when the gateway does not count executions.',
    '',
    '| Screen | Upstream latency | Phase | Server | req/s | p50 | p99 | CPU ms/req | Upstream calls/req | Peak RSS | Executions/key/TTL | Requests | non-2xx | with GraphQL errors | vs baseline |',
    '|---|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const group of groups.values()) {
    const r = group[0]!;
    const of = (figure: (x: ThroughputRow) => number) => median(group.map(figure));
    const sum = (figure: (x: ThroughputRow) => number) => group.reduce((total, x) => total + figure(x), 0);
    const rps = of((x) => x.rps);
    const executions = group.map((x) => x.executionsPerKeyWindow).filter((x): x is number => x !== null);
    const upstream = Object.fromEntries(Object.keys(r.upstream).map((service) => [service, of((x) => x.upstream[service] ?? 0)]));
    lines.push(
      `| ${r.screen} | ${r.server === 'bare' ? '–' : `${r.latencyMs} ms`} | ${r.server === 'bare' ? '–' : r.phase} | ${r.server} | ${fixed(rps, 0)} | ${fixed(of((x) => x.p50), 0)} ms | ${fixed(of((x) => x.p99), 0)} ms | ` +
        `${fixed(of((x) => x.cpuMsPerRequest), 2)} | ${upstreamText(upstream)} | ${mib(of((x) => x.peakRssBytes))} | ${r.server === 'gateway' ? (executions.length === 0 ? 'n/a' : fixed(median(executions), 2)) : '–'} | ` +
        `${sum((x) => x.requests)} | ${sum((x) => x.non2xx)} | ${sum((x) => x.graphqlErrors)} | ${versus(group, rps)} |`,
    );
  }
  const warm = rows.filter((r) => r.phase === 'warm' && r.server !== 'bare');
  if (ctx.options.rounds > 1 && warm.length > 0) {
    const rounds = Array.from({ length: ctx.options.rounds }, (_, i) => i + 1);
    lines.push(
      '',
      '### Warm windows, round by round',
      '',
      'req/s (CPU ms/req) of each round\'s warm window; the servers of one round ran one after the other.',
      '',
      `| Screen | Upstream latency | Server | ${rounds.map((n) => `Round ${n}`).join(' | ')} |`,
      `|---|---:|---|${rounds.map(() => '---:').join('|')}|`,
    );
    for (const group of groups.values()) {
      const r = group[0]!;
      if (r.phase !== 'warm' || r.server === 'bare') continue;
      const cells = rounds.map((n) => {
        const x = group.find((g) => g.round === n);
        return x ? `${fixed(x.rps, 0)} (${fixed(x.cpuMsPerRequest, 2)})` : '–';
      });
      lines.push(`| ${r.screen} | ${r.latencyMs} ms | ${r.server} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('', ...ctx.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
