import { sha256 } from '../../hashing.js';
import { toError, type Caller } from '../../inflight-waiter.js';
import type { Layer, UpstreamCall } from './call.js';
import { passDeadline } from './deadline.js';
import { ANYONE, Listing, SharedGet } from './shared-get.js';

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
    // Each caller's GETs in flight: a shared call's own timeout decides whether a waiter needs a timer.
    const listing = new Listing();

    return function joined(call) {
      if (call.method !== 'GET' || call.onBytes) return next(call);
      // Its caller already left: nothing to start or join.
      if (call.endedBy) return call.to.reject(call.endedBy);
      const who = call.headers === defaultHeaders ? '' : (call.caller ?? callerOf(call.headers));
      // Listed by caller and path; a GET of another route label or body cap is not joined, but replaced in the listing.
      const listed = listing.find(who, call.path);
      const shared = listed?.call;
      // A shared call already ended (its last waiter left, or its timeout passed) is not joined: its end is on its way.
      if (!listed || !shared || shared.endedBy || shared.route !== call.route || shared.maxBytes !== call.maxBytes) return lead(call, who);
      // Its caller learns the shared call's status and attempts once answered (the ledger's `learn`), without a step of its own.
      call.sharedWith = shared;
      // Its caller's abort and deadline end its wait through `call.runs` (cancel.ts), not the shared call.
      call.runs(listed.join(waitOf(call, shared), call.to));
    };

    /** Starts the shared call for `call`, its first caller, which it settles directly until a second caller joins. */
    function lead(call: UpstreamCall, who: string): void {
      const started = call.forEveryone();
      const get = new SharedGet(who, started.path, started, call, listing);
      started.to = get;
      call.sharedWith = started;
      try {
        next(started);
      } catch (error) {
        get.reject(toError(error));
      }
      // Known once the timeout layer below armed the shared call: an earlier deadline of the first caller's needs a wait of its own.
      const waits = waitOf(call, started);
      if (waits === ANYONE) call.runs(get);
      else get.waitAs(waits);
    }
  };
}

/** How `call` waits on `shared`: its deadline needs a timer of its own only when it comes before the shared call's own timeout. */
function waitOf(call: UpstreamCall, shared: UpstreamCall): Caller {
  return call.deadlineAt < shared.endsAt ? { deadlineAt: call.deadlineAt, expired: () => expire(call) } : ANYONE;
}

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
