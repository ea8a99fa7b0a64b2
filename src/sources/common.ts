import type { CallScope } from '../operation/index.js';

/**
 * The scope of a subscription's event: the stream's signal alone. It aborts when the subscriber goes
 * away, the only one the event's reads serve; nothing is counted or timed, as a stream lives long and
 * reads per event.
 */
export function eventScope(scope: CallScope): CallScope {
  return scope.signal ? { signal: scope.signal } : {};
}

const settled = Promise.resolve();

/**
 * Runs `run` at the moment a DataLoader's batch runs: after the promise jobs already queued in this
 * tick, then on `process.nextTick`, so that the loads asked by one tick's fields are seen together.
 */
export function afterBatchTick(run: () => void): void {
  void settled.then(() => process.nextTick(run));
}
