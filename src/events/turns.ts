import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Work on a large webhook batch runs in slices of about this many milliseconds, each followed by a turn
 * of the event loop, so `/health`, other requests and the sockets wait at most a slice behind it.
 */
export const SLICE_MS = 4;

/**
 * A function to await between steps of a long piece of work: it yields a turn of the event loop once
 * `sliceMs` have passed since the last turn, and otherwise resolves at once (a microtask, no timer),
 * so steps of a few microseconds are not each paid a turn.
 */
export function loopTurns(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}
