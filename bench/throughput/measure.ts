/**
 * One measured window of the throughput rig: a fixed number of requests from autocannon, the server's
 * CPU and peak RSS from /proc, the upstream calls from the simulator's counters.
 */
import autocannon from 'autocannon';
import { request } from 'undici';
import { loadConfig } from '../../src/config.js';
import { upstreamCounts } from './fixtures.js';
import { cpuMs, peakRss } from './processes.js';
import type { Screen } from './screens.js';
import { WARM_UP_PER_CONNECTION, type Fixtures, type Phase, type Rig, type Target, type ThroughputOptions, type ThroughputRow } from './types.js';

/**
 * The request autocannon sends for a screen to a server. A signed-in screen takes the next user of the
 * rotation for every request (one counter for every connection, continued across the process's windows),
 * so with at least as many users as connections no two connections send the same user's request at once.
 */
export function requestFor(target: Target, screen: Screen, fixtures: Fixtures, state: WindowState): autocannon.Request {
  const graphql = JSON.stringify({ query: screen.query, variables: screen.variables });
  const base: autocannon.Request =
    target.kind === 'baseline'
      ? { method: 'POST', path: screen.baselinePath, body: JSON.stringify(screen.baselineBody) }
      : { method: 'POST', path: '/graphql', body: graphql };
  base.headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  const users = Math.min(screen.users ?? 20, fixtures.tokens.length);
  if (screen.signedIn) {
    base.setupRequest = (req) => {
      const token = fixtures.tokens[target.turn++ % users]!;
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

export interface WindowState {
  /** When the window's last response arrived (performance.now()). */
  lastResponseAt: number;
  graphqlErrors: number;
  firstError: string | null;
  lastGoodBody: string | null;
}

/** Waits (at most 5 s) until the server is idle: no upstream call and at most one clock tick of CPU over 200 ms. */
export async function settle(simUrl: string, pid: number): Promise<void> {
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

/**
 * One window of `amount` requests: every request sent is answered inside the window, so CPU and upstream
 * calls divide exactly. A warm window is first sized by an unmeasured warm-up.
 */
export async function measure(rig: Rig, target: Target, screen: Screen, latencyMs: number, phase: Phase, round: number, options: ThroughputOptions): Promise<{ row: ThroughputRow; body: string | null }> {
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
    const unsent = screen.distinctUsers && screen.users ? screen.users - target.turn : Infinity;
    amount = Math.min(100_000, unsent, Math.max(2 * options.connections, Math.round(rate * options.warmSeconds)));
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
