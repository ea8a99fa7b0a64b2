import { sha256 } from '../../hashing.js';
import { InFlight } from '../../inflight.js';
import type { Layer, UpstreamCall } from './call.js';
import { passDeadline } from './deadline.js';

/**
 * Identical GETs in flight (same path and query, route, body cap and headers) make one call, its answer
 * shared: the shared call settles its flight, which settles each waiting call. The call answers to no
 * one caller: it has its own timeout, and only the abort of its last waiter ends it; each caller waits
 * with its own deadline and signal. A GET whose caller learns its body's size (`onBytes`) is its own.
 *
 * `defaultHeaders` is the object a call without headers of its own carries: those are keyed as they
 * are; other headers (credentials) by their caller's key (`caller`, the hash the request made of its
 * credentials) or else by their own hash, never held as they are.
 */
export function share(defaultHeaders: Record<string, string>): Layer {
  return (next) => {
    // Each flight's meta is the shared call itself: its own timeout decides whether a waiter needs a timer.
    const inFlight = new InFlight<string, unknown, UpstreamCall>();

    return function joined(call) {
      if (call.method !== 'GET' || call.onBytes) return next(call);
      // Its caller already left: nothing to start or join.
      if (call.endedBy) return call.to.reject(call.endedBy);
      const who = call.headers === defaultHeaders ? '' : (call.caller ?? callerOf(call.headers));
      // Keyed by caller and path; a flight of another route label or body cap is not joined, but replaced in the listing.
      const key = who === '' ? call.path : `${who}\n${call.path}`;
      let flight = inFlight.get(key);
      // Read while listed: a flight lets go of its meta once it settles, which the start below may do at once.
      let shared = flight?.meta;
      // A shared call already ended (its last waiter left, or its timeout passed) is not joined: its end is on its way.
      if (!flight || !shared || shared.endedBy || shared.route !== call.route || shared.maxBytes !== call.maxBytes) {
        const started = (shared = call.forEveryone());
        const opened = (flight = inFlight.open(key, { meta: started, abandoned: (reason) => started.end(reason) }));
        // The shared call's outcome settles the flight itself, no promise between them.
        started.to = opened;
        try {
          next(started);
        } catch (error) {
          opened.reject(error);
        }
      }
      // Its caller learns the shared call's status and attempts once answered (the ledger's `learn`), without a step of its own.
      call.sharedWith = shared;
      // Its caller's abort and deadline end its wait through `call.runs` (cancel.ts), not the shared call;
      // its deadline needs a timer of its own only when it comes before the shared call's own timeout.
      const early = call.deadlineAt < shared.endsAt;
      const waiter = flight.joinWith(early ? { deadlineAt: call.deadlineAt, expired: () => expire(call) } : ANYONE, call.to);
      call.runs(waiter);
    };
  };
}

/** A waiter whose own deadline comes after the shared call's timeout: nothing of its own to arm. */
const ANYONE = Object.freeze({});

/** Ends `call` as its deadline passes (which ends its wait, through `call.runs`): the reason its wait ended with. */
function expire(call: UpstreamCall): Error {
  passDeadline(call);
  return call.endedBy!;
}

/** The hash a call's headers are keyed by: once per headers object (a caller's calls share one: http.ts). */
function callerOf(headers: Record<string, string>): string {
  let who = callers.get(headers);
  if (who === undefined) callers.set(headers, (who = sha256(JSON.stringify(headers))));
  return who;
}

const callers = new WeakMap<Record<string, string>, string>();
