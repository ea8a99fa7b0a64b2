/** Load loops, latency and upstream-count arithmetic, and heap readings: what the scenarios compute with. */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SERVICES, type ServiceName, type Simulator } from '../src/simulator/index.js';
// Load

export interface LoadResult<R> {
  results: R[];
  elapsedMs: number;
}

/** Runs `fn` from `concurrency` workers until `durationMs` has passed; each worker waits for its answer before the next request. */
export async function runFor<R>(
  durationMs: number,
  concurrency: number,
  fn: (worker: number, iteration: number) => Promise<R>,
): Promise<LoadResult<R>> {
  const results: R[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i++) results.push(await fn(worker, i));
    }),
  );
  return { results, elapsedMs: performance.now() - started };
}

/** Runs `fn` `count` times, one after another. */
export async function runSequential<R>(count: number, fn: (iteration: number) => Promise<R>): Promise<LoadResult<R>> {
  const results: R[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) results.push(await fn(i));
  return { results, elapsedMs: performance.now() - started };
}

// Numbers

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentiles of a sample. */
export function summarize(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { count: 0, p50: NaN, p95: NaN, mean: NaN, max: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  return {
    count: sorted.length,
    p50: rank(50),
    p95: rank(95),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    max: sorted[sorted.length - 1]!,
  };
}

/** Upstream calls by service (from the simulator's counters). */
export type ServiceCounts = Record<ServiceName, number>;

export function countsByService(sim: Simulator): ServiceCounts {
  return { alerts: sim.controls.count('alerts'), markets: sim.controls.count('markets'), assets: sim.controls.count('assets') };
}

/** `alerts 3 · markets 2 · assets 0.5` per request. */
export function perRequest(counts: ServiceCounts, requests: number): string {
  return SERVICES.map((s) => `${s} ${round(counts[s] / Math.max(1, requests), 2)}`).join(' · ');
}

export function totalCalls(counts: ServiceCounts): number {
  return counts.alerts + counts.markets + counts.assets;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function ms(value: number): string {
  return Number.isFinite(value) ? `${round(value, value < 10 ? 1 : 0)} ms` : 'n/a';
}

// Heap

export interface Collector {
  collect(): void;
  /** How a full collection is triggered: `global.gc (--expose-gc)`, the V8 flag set at run time, or not at all. */
  how: string;
}

/**
 * A full GC before each heap reading. With `--expose-gc`, `global.gc`; without it the flag is set at
 * run time and `gc` taken from a fresh context (V8 honours it there), so `npm run bench` needs no flags.
 */
export function gcCollector(): Collector {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return { collect: () => exposed(), how: 'global.gc() (--expose-gc)' };
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return { collect: () => (gc as () => void)(), how: 'gc() via v8.setFlagsFromString (no --expose-gc)' };
  } catch {
    // Fall through: readings without a collection include garbage.
  }
  return { collect: () => {}, how: 'none (no --expose-gc; readings include garbage)' };
}

/** Heap used after two full collections (the second sweeps what the first's finalizers freed). */
export function heapUsed(collector: Collector): number {
  collector.collect();
  collector.collect();
  return process.memoryUsage().heapUsed;
}

export function mib(bytes: number): string {
  return `${round(bytes / (1024 * 1024), 1)} MiB`;
}

export function sumCounts(all: readonly ServiceCounts[]): ServiceCounts {
  return all.reduce((a, b) => ({ alerts: a.alerts + b.alerts, markets: a.markets + b.markets, assets: a.assets + b.assets }), {
    alerts: 0,
    markets: 0,
    assets: 0,
  });
}

/** The middle value (the upper one of an even count): rounds of a noisy measurement are read by it. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}
