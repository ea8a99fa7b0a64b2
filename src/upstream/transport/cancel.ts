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
 * How long a call runs before its caller's signal is listened to. Most calls are answered sooner, and
 * their request then never adds a listener (on the request's signal of Yoga's server adapter, a
 * proxied EventTarget, the most costly step of a short call: bench/PHASES.md). A caller's abort
 * still ends every call: one still young when it happens ends within two periods, at the check.
 */
export const LISTEN_AFTER_MS = 20;

/**
 * The calls with a signal, by age: `young` started in the current period, `aging` in the one before.
 * Each period, the aging calls still running get their signal listened to (or end at once, when it
 * already aborted), and the young ones' line becomes the aging one. A call answered leaves its place
 * empty (`UpstreamCall.release`): a slot in an array rather than a set's entry, and no answered call
 * is held until the check.
 */
let young: (UpstreamCall | undefined)[] = [];
let aging: (UpstreamCall | undefined)[] = [];
let checking: NodeJS.Timeout | undefined;

function check(): void {
  const old = aging;
  aging = young;
  young = [];
  for (const call of old) {
    if (!call) continue;
    call.line = undefined;
    const signal = call.scope!.signal!;
    if (signal.aborted) abortedByCaller(call);
    else (call.listening = callsOf(signal)).add(call);
  }
  // Unreferenced: a call in flight keeps the process alive by its socket, not by this check.
  checking = aging.length > 0 ? setTimeout(check, LISTEN_AFTER_MS).unref() : undefined;
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
    else if (signal) {
      call.line = young;
      call.lineAt = young.push(call) - 1;
      checking ??= setTimeout(check, LISTEN_AFTER_MS).unref();
    }
    return next(call);
  };
