import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants as zlib, gzip } from 'node:zlib';
import type { Registry } from 'prom-client';
import { processCounter } from '../metrics.js';
import { CompressionBudget, spentCompressing } from './compression-budget.js';

/**
 * What compressing one answer may cost, bounded because a flood of uncached compressed answers once
 * cost most of the throughput and held hundreds of MB after GC, each concurrent brotli stream with its
 * own multi-megabyte window (scripts/compression-flood.ts measures it; figures in README "On the wire"):
 *
 * - **effort by reuse and size**: an answer the response cache holds is compressed once and served many
 *   times, so it takes brotli 5 / gzip 6; a one-off answer takes brotli 4 under 64 KiB (a few tenths of a
 *   millisecond) and brotli 0 from there (gzip 1 in each case): on the 180 KB markets page brotli 0 took
 *   a quarter of the CPU of brotli 1 or 2 (and a third of gzip 1's) for a body 16 % larger (37 KB against
 *   32 KB; README "On the wire"), and a one-off answer's CPU is taken from the requests that wait behind it.
 * - **where**: brotli 0 up to 256 KiB on the event loop (`inline`), the rest on zlib's thread pool.
 * - **window fitted to the body**: brotli's window (lgwin) is the body's size rounded up to a power of
 *   two (1 KiB to 16 MiB), so a 20 KB answer does not reserve a 4 MiB window.
 * - **a cap on concurrent compressions**: past `maxConcurrent` answers being compressed, an answer that
 *   has no compressed form yet is sent as it is (identity), which costs the gateway nothing more.
 * - **a share of a saturated process's CPU** (`CompressionBudget`, compression-budget.ts): past it, the
 *   same; a cached answer not compressed then is compressed at a later hit, as past the cap.
 */

export type Coding = 'br' | 'gzip';

export interface CompressionEffort {
  coding: Coding;
  /** Brotli quality (0–11) or gzip level (1–9). */
  level: number;
  /** Brotli's window, log2 of its bytes (10–24); absent for gzip (its window is 32 KiB at most). */
  lgwin?: number;
}

/** One-off answers under this many bytes take brotli 4 (small enough that a little more effort costs little); larger ones brotli 0. */
export const SMALL_ANSWER_BYTES = 64 * 1024;
/** Compressions running at once at most, by default: half of libuv's default pool of 4 threads (DNS and file reads use it too). */
export const DEFAULT_MAX_CONCURRENT_COMPRESSIONS = 2;

/** The effort for an answer of `size` bytes in `coding`; `reused` when the response cache holds it (compressed once, served often). */
export function compressionEffort(coding: Coding, size: number, reused: boolean): CompressionEffort {
  if (coding === 'gzip') return { coding, level: reused ? 6 : 1 };
  const level = reused ? 5 : size < SMALL_ANSWER_BYTES ? 4 : 0;
  return { coding, level, lgwin: fittedWindow(size) };
}

/** Brotli's window for `size` bytes: the smallest power of two holding them, within brotli's 1 KiB–16 MiB. */
export function fittedWindow(size: number): number {
  const bits = Math.ceil(Math.log2(Math.max(size, 1)));
  return Math.min(Math.max(bits, zlib.BROTLI_MIN_WINDOW_BITS), zlib.BROTLI_MAX_WINDOW_BITS);
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * zlib's output chunk for `size` bytes of JSON: a quarter of the body (what one-off efforts make of
 * this gateway's answers: a fifth), so the compressed body comes back in one chunk. Node's default of
 * 16 KiB sends a 180 KB page back and forth between the thread pool and the event loop three times
 * (under the flood, a `--cpu-prof` put zlib's callback on the event loop at a quarter of that with one chunk).
 */
export function outputChunk(size: number): number {
  return Math.min(Math.max(Math.ceil(size / 4), zlib.Z_DEFAULT_CHUNK), MAX_OUTPUT_CHUNK);
}

const MAX_OUTPUT_CHUNK = 1024 * 1024;

/** Brotli 0 on bodies up to this size is compressed on the event loop. */
export const INLINE_MAX_BYTES = 256 * 1024;

/**
 * Whether `body` is compressed on the event loop: brotli 0 (a large one-off answer) up to
 * INLINE_MAX_BYTES, about a tenth of the 180 KB page's execution. On the thread pool the answer outlives
 * the young generation's next collection while it waits its turn there, is promoted, and the old
 * generation it fills is collected whole: under the br flood, `--trace-gc` showed mark-compacts where
 * identity's flood had none, fewer once inline, each a longer stall of the loop than one execution.
 * Gzip 1 costs three times brotli 0 and stays on the pool, as do the efforts of small and cached answers.
 */
export function inline(size: number, effort: CompressionEffort): boolean {
  return effort.coding === 'br' && effort.level === 0 && size <= INLINE_MAX_BYTES;
}

/** Compresses `body` with the effort given: on the event loop when `inline`, else on zlib's thread pool. */
export function compress(body: Buffer, effort: CompressionEffort): Promise<Buffer> {
  const started = performance.now();
  const done = (compressed: Buffer) => {
    spentCompressing(performance.now() - started);
    return compressed;
  };
  const chunkSize = outputChunk(body.length);
  if (effort.coding === 'gzip') return gzipAsync(body, { level: effort.level, chunkSize }).then(done);
  const options = {
    chunkSize,
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: effort.level,
      [zlib.BROTLI_PARAM_LGWIN]: effort.lgwin ?? fittedWindow(body.length),
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  };
  return inline(body.length, effort) ? Promise.resolve(done(brotliCompressSync(body, options))) : brotliAsync(body, options).then(done);
}

/** Scratch buffers larger than this are dropped after their compression rather than kept for the next. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

/**
 * Counts compressions in progress; `tryStart` refuses one past the cap. Each slot keeps the buffer it
 * wrote its last answer's UTF-8 bytes into, for the next, rather than allocating the size of every
 * compressed answer again outside V8's heap.
 */
export class CompressionSlots {
  #running = 0;
  readonly #scratch: Buffer[] = [];

  constructor(
    readonly max: number = DEFAULT_MAX_CONCURRENT_COMPRESSIONS,
    readonly budget: CompressionBudget = new CompressionBudget(),
  ) {}

  get running(): number {
    return this.#running;
  }

  /**
   * Runs `work` in a slot, or returns null at once when every slot is taken or the budget is spent. `work` gets `bytesOf`,
   * which writes a text's UTF-8 bytes into the slot's buffer: valid until `work`'s promise settles.
   */
  tryStart<T>(work: (bytesOf: (text: string) => Buffer) => Promise<T>): Promise<T> | null {
    // Each refusal is an answer sent as it is: counted for /metrics by its reason.
    if (this.#running >= this.max) return refused('concurrency_cap');
    if (!this.budget.allows()) return refused('cpu_budget');
    this.#running += 1;
    let scratch = this.#scratch.pop();
    const bytesOf = (text: string): Buffer => {
      const size = Buffer.byteLength(text);
      if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
      return scratch.subarray(0, scratch.write(text));
    };
    // An async wrapper, so that work throwing before its promise frees the slot as well.
    return (async () => work(bytesOf))().finally(() => {
      this.#running -= 1;
      if (scratch && scratch.length <= MAX_SCRATCH_BYTES) this.#scratch.push(scratch);
    });
  }
}

/** Why an answer a client asked compressed was sent as it is: the cap on concurrent compressions, or the budget of a saturated process. */
type Uncompressed = 'concurrency_cap' | 'cpu_budget';

/** Answers this process sent uncompressed, by reason: process-wide, as the CPU and the slots they stand for are the process's. */
const uncompressed: Record<Uncompressed, number> = { concurrency_cap: 0, cpu_budget: 0 };

function refused(reason: Uncompressed): null {
  uncompressed[reason] += 1;
  return null;
}

/**
 * `gateway_uncompressed_answers_total{reason}` on `registry`: answers of 1 KiB or more whose client
 * accepted br or gzip, sent uncompressed because every compression slot was taken (`concurrency_cap`)
 * or a saturated process had spent its compression budget (`cpu_budget`). An operator reads from it
 * how much of the traffic goes uncompressed under load, which the answers' headers alone do not show.
 */
export function registerCompressionMetrics(registry: Registry): void {
  processCounter(registry, {
    name: 'gateway_uncompressed_answers_total',
    help: 'Answers of 1 KiB or more sent uncompressed although the client accepted br or gzip: every compression slot taken (concurrency_cap), or the compression budget of a saturated process spent (cpu_budget).',
    label: 'reason',
    read: () => uncompressed,
  });
}
