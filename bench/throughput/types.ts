/** The throughput rig's shared vocabulary: options, servers, rows and the rig itself. */
import type { ScreenName } from './screens.js';
import type { Proc } from './processes.js';

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
   * Rounds of each screen and latency: the screen's servers in turn, a fresh
   * process each, then again. The report gives each figure's median over the rounds and each ratio's
   * median over the rounds' pairs (so a comparison holds while the machine's speed drifts), with its range.
   */
  rounds: number;
}

export const THROUGHPUT_DEFAULTS: ThroughputOptions = { warmSeconds: 5, coldRequests: 100, connections: 50, latencies: [0, 20], build: true, rounds: 3 };

/** Cores: the load generator and the simulator share one, the measured server has the other to itself. */
export const RIG_CORE = 0;
export const SERVER_CORE = 1;
/**
 * Requests per connection of the unmeasured warm-up before a warm window; its rate sizes the window.
 * A thousand requests (the phase profiles' warm-up too) bring the JIT and the heap's sizes near their
 * steady state and measure a rate close to the window's own, so the window lasts about `warmSeconds`.
 */
export const WARM_UP_PER_CONNECTION = 20;

/**
 * - `gateway`: production's defaults, response cache on;
 * - `gateway-off`: `RESPONSE_CACHE=off`, the rest default (positions shared 2 s, verified identities
 *   believed 60 s, identical requests in flight collapsed, public data cached);
 * - `gateway-cold`: `RESPONSE_CACHE=off POSITIONS_SHARE_TTL_MS=0 AUTH_IDENTITY_TTL_MS=0`: every per-user
 *   read made, public reads shared (as the baseline shares them), and a screen's public root fields of
 *   market and asset metadata held up to 1 s (`PUBLIC_SUBTREE_HOLD_MS`'s default), which the baseline does not do;
 * - `baseline`: hand-written, public reads shared, per-user reads every time; `bare`: the ceiling.
 */
export type ServerKind = 'gateway' | 'gateway-off' | 'gateway-cold' | 'baseline' | 'bare';
export type Phase = 'cold' | 'warm';

/** What each gateway row has on, for the report's legend. */
export const SERVER_LEGEND: Record<ServerKind, string> = {
  gateway: 'production defaults: response cache on (private 5 s), positions shared 2 s, identities believed 60 s, in-flight collapse, public data cached',
  'gateway-off': '`RESPONSE_CACHE=off`, the rest default: positions shared 2 s, identities believed 60 s, in-flight collapse and public data cached (not every read is made)',
  'gateway-cold': '`RESPONSE_CACHE=off POSITIONS_SHARE_TTL_MS=0 AUTH_IDENTITY_TTL_MS=0`: every per-user read made on every request; public reads (assets, market listings) cached, as in the baseline; public root fields of market and asset metadata (MobileHome\'s top lending markets, no prices) held up to 1 s (`PUBLIC_SUBTREE_HOLD_MS` default), which the baseline does not do',
  baseline: 'hand-written (bench/throughput/baseline/): undici `request` + `Promise.all`, no GraphQL; public reads cached process-wide (assets 10 s, market listings 30 s, one call in flight per key), every per-user read made',
  bare: 'a node `http` server sending the baseline\'s answer as a fixed body: the ceiling of the rig',
};

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

export interface Fixtures {
  clientKey: string;
  tokens: string[];
  wallet: { address: string; positions: number };
}

export interface Rig {
  simUrl: string;
  /** bench/throughput/baseline/ compiled to one JavaScript file. */
  baselineJs: string;
  env: NodeJS.ProcessEnv;
  fixtures: Fixtures;
  pinned: boolean;
  /** Extra node flags for the measured servers (the phase profile's `--cpu-prof`). */
  nodeFlags?: readonly string[];
  /** The gateway's entry instead of production's `dist/server.js` (an A/B run's other build). */
  gatewayEntry?: string;
}

export interface Target {
  kind: ServerKind;
  proc: Proc;
  port: number;
  /** Requests sent so far to this process: the signed-in screens' user rotation continues across windows. */
  turn: number;
}
