import { performance } from 'node:perf_hooks';
import { requestsWaiting } from '../admission.js';

/**
 * Whether the process may spend CPU on compressing one more answer. While it is saturated (its event
 * loop had no spare time over the last window, utilisation above `busyAbove`, and a request waits for
 * its turn in admission.ts now), compressions may take `busyShare` of the CPU the process used in that
 * window (CPU, not the window's length: a process that shares its core gets less of it, and its budget
 * shrinks with it); past it, answers go as they are. Otherwise every compression is allowed.
 *
 * Why CPU-aware: a one-off answer compressed on a saturated core takes its CPU from the requests that
 * wait behind it. Under a flood of uncached 180 KB pages (scripts/compression-flood.ts) compressing
 * every answer, even at brotli 0, served far fewer answers than identity, and the compressor's own time
 * was the smaller part of what a compressed answer cost (V8's GC helper threads, among others, took
 * more): the CPU it brings is a multiple of what the compression measures, so the share is small.
 * Identity costs a saturated gateway nothing more; with spare CPU compression delays nobody, so then
 * every answer is compressed. Saturated needs both signs: a loop kept busy by a few requests has nobody
 * behind them, and a queue behind a loop that idles is not waiting for CPU. The share is measured
 * (`compressionTime`), not counted, so small answers, cheap to compress, go compressed more often.
 */
export interface BudgetOptions {
  /** Length of the window the loop's utilisation and the compression time are measured over, ms. */
  windowMs: number;
  /** Utilisation of the last window above which the process counts as saturated. */
  busyAbove: number;
  /** Share of the CPU of a saturated window that compression may take in the next. */
  busyShare: number;
  /** The clock, ms (a test drives its own). */
  now: () => number;
  /** The loop's utilisation (0–1) since the last call. */
  utilisation: () => number;
  /** Milliseconds spent compressing so far (`compressionTime`). */
  spent: () => number;
  /** Milliseconds of CPU the process has used so far, every thread. */
  cpu: () => number;
  /** Requests waiting for their turn now (`requestsWaiting`). */
  waiting: () => number;
}

export const DEFAULT_BUDGET: Readonly<Omit<BudgetOptions, 'now' | 'utilisation' | 'spent' | 'cpu' | 'waiting'>> = Object.freeze({ windowMs: 100, busyAbove: 0.8, busyShare: 0.02 });

export class CompressionBudget {
  readonly #options: BudgetOptions;
  #windowStart: number;
  #spentAtStart: number;
  #cpuAtStart: number;
  /** Compression ms this window may take while saturated. */
  #allowance = 0;
  /** Whether the loop had no spare time in the last whole window. */
  #busy = false;

  constructor(options: Partial<BudgetOptions> = {}) {
    this.#options = { ...DEFAULT_BUDGET, now: () => performance.now(), utilisation: loopUtilisation(), spent: compressionTime, cpu: processCpuMs, waiting: requestsWaiting, ...options };
    this.#windowStart = this.#options.now();
    this.#spentAtStart = this.#options.spent();
    this.#cpuAtStart = this.#options.cpu();
  }

  /** Whether one more compression may start now. */
  allows(): boolean {
    const { now, spent, cpu, waiting, windowMs, busyShare, busyAbove, utilisation } = this.#options;
    const at = now();
    if (at - this.#windowStart >= windowMs) {
      const used = cpu();
      this.#busy = utilisation() > busyAbove;
      // Scaled to one window's length: a long stretch without a compression must not buy a burst of them.
      this.#allowance = busyShare * (used - this.#cpuAtStart) * Math.min(1, windowMs / (at - this.#windowStart));
      [this.#windowStart, this.#spentAtStart, this.#cpuAtStart] = [at, spent(), used];
    }
    return !this.#busy || waiting() === 0 || spent() - this.#spentAtStart < this.#allowance;
  }
}

/**
 * Milliseconds this process has spent compressing (`compress` adds each compression's time): on the
 * event loop, or from handing a body to zlib's pool to getting it back, which counts the wait for a
 * thread too, so a budget read from it errs on the side of compressing less. Process-wide, as the CPU
 * it stands for is the process's.
 */
let compressionMs = 0;
export const compressionTime = (): number => compressionMs;
export function spentCompressing(ms: number): void {
  compressionMs += ms;
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The event loop's utilisation since the previous call (`performance.eventLoopUtilization`). */
function loopUtilisation(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const current = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(current, last);
    last = current;
    return utilization;
  };
}
