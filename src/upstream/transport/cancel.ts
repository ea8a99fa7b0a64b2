import type { Layer, UpstreamCall } from './call.js';

/** The operation the call was made for went away (its scope's signal aborted: `ABORTED`). */
export class CallerAborted extends Error {
  readonly code = 'ABORTED';
}

/** For each caller's signal, the calls in flight that its abort ends. */
const callsBySignal = new WeakMap<AbortSignal, Set<UpstreamCall>>();

/**
 * A request's calls share its one signal, so it gets one listener for all of them: one per call would
 * pass Node's limit of 10 per signal (MaxListenersExceededWarning) as soon as a request fans out.
 */
function callsOf(signal: AbortSignal): Set<UpstreamCall> {
  let calls = callsBySignal.get(signal);
  if (!calls) {
    const listening = (calls = new Set());
    signal.addEventListener('abort', () => listening.forEach(abortedByCaller), { once: true });
    callsBySignal.set(signal, calls);
  }
  return calls;
}

function abortedByCaller(call: UpstreamCall): void {
  call.end(new CallerAborted('aborted by the caller'));
}

/**
 * The caller's abort ends its call: the request in flight, or its wait on a shared call (share.ts),
 * which goes on for the others. The call is listed under its signal until its caller has the answer
 * (`UpstreamCall.release`, by the ledger layer): no promise of its own. Calls without a signal pass straight through.
 */
export const cancel: Layer = (next) =>
  function cancellable(call) {
    const signal = call.scope?.signal;
    if (signal?.aborted) abortedByCaller(call);
    else if (signal) (call.listening = callsOf(signal)).add(call);
    return next(call);
  };
