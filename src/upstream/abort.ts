/** Ending calls early: the caller's abort, fanned out to every call of a request, and an abortable pause. */

/** For each caller's signal, the calls in flight that its abort ends. */
const callsBySignal = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `abort` when `signal` aborts, until the returned function is called. A request's calls share
 * its one signal, so it gets one listener for all of them: one per call would pass Node's limit of 10
 * per signal (MaxListenersExceededWarning) as soon as a request fans out.
 */
export function whenAborted(signal: AbortSignal, abort: () => void): () => void {
  const calls = callsBySignal.get(signal) ?? listenTo(signal);
  calls.add(abort);
  return () => calls.delete(abort);
}

function listenTo(signal: AbortSignal): Set<() => void> {
  const calls = new Set<() => void>();
  signal.addEventListener('abort', () => calls.forEach((abort) => abort()), { once: true });
  callsBySignal.set(signal, calls);
  return calls;
}

/** Resolves after `ms`, or rejects with `signal`'s reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
