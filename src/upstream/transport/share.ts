import { sha256 } from '../../hashing.js';
import { UpstreamCall, type Endable, type Layer } from './call.js';
import { passDeadline } from './deadline.js';

/**
 * Identical GETs in flight (same path and query, route, body cap and headers) make one call, its answer
 * shared. The call answers to no one caller: it has its own timeout, and only the abort of its last
 * waiter ends it; each caller waits with its own deadline and signal. A GET whose caller learns its
 * body's size (`onBytes`) is its own.
 *
 * `defaultHeaders` is the object a call without headers of its own carries: those are keyed as they
 * are; other headers (credentials) by their hash, never held as they are.
 */
export function share(defaultHeaders: Record<string, string>): Layer {
  return (next) => {
    const inFlight = new Map<string, SharedCall>();

    function start(key: string, call: UpstreamCall): SharedCall {
      const shared = new SharedCall(new UpstreamCall({ ...call, onBytes: undefined, scope: undefined }), key, inFlight);
      inFlight.set(key, shared);
      next(shared.call).then(
        (value) => shared.settle(value, undefined),
        (error: unknown) => shared.settle(undefined, error instanceof Error ? error : new Error(String(error))),
      );
      return shared;
    }

    return function joined(call) {
      if (call.method !== 'GET' || call.onBytes) return next(call);
      // Its caller already left: nothing to start or join.
      if (call.endedBy) return Promise.reject(call.endedBy);
      const who = call.headers === defaultHeaders ? '' : callerOf(call.headers);
      const key = `${call.path}\n${call.route}\n${call.maxBytes}\n${who}`;
      // A shared call its last waiter ended is not joined: its end is on its way.
      const shared = inFlight.get(key);
      return new Waiter(call, shared && !shared.call.endedBy ? shared : start(key, call)).answer;
    };
  };
}

/** The hash a call's headers are keyed by: once per headers object (a caller's calls share one: http.ts). */
function callerOf(headers: Record<string, string>): string {
  let who = callers.get(headers);
  if (who === undefined) callers.set(headers, (who = sha256(JSON.stringify(headers))));
  return who;
}

const callers = new WeakMap<Record<string, string>, string>();

/** One GET in flight that several callers wait on. */
class SharedCall {
  readonly waiters = new Set<Waiter>();

  constructor(
    readonly call: UpstreamCall,
    readonly key: string,
    readonly inFlight: Map<string, SharedCall>,
  ) {}

  settle(value: unknown, error: Error | undefined): void {
    if (this.inFlight.get(this.key) === this) this.inFlight.delete(this.key);
    for (const waiter of this.waiters) waiter.settle(value, error);
    this.waiters.clear();
  }
}

/**
 * One caller waiting on a shared call. Its operation's deadline and its signal end its wait (with the
 * errors a call of its own would have ended with), not the call, unless it was the last one waiting.
 * Its deadline needs a timer only when it comes before the shared call's own timeout.
 */
class Waiter implements Endable {
  readonly answer: Promise<unknown>;
  #resolve!: (value: unknown) => void;
  #reject!: (error: Error) => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly call: UpstreamCall,
    readonly shared: SharedCall,
  ) {
    this.answer = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    shared.waiters.add(this);
    if (call.deadlineAt < shared.call.endsAt) this.#timer = setTimeout(passDeadline, Math.max(0, call.deadlineAt - performance.now()), call);
    call.runs(this);
  }

  /** Its caller left (its abort, or its operation out of time); the last to leave ends the shared call. */
  end(reason: Error): void {
    const { waiters } = this.shared;
    if (!waiters.delete(this)) return;
    this.settle(undefined, reason);
    if (waiters.size === 0) this.shared.call.end(reason);
  }

  settle(value: unknown, error: Error | undefined): void {
    clearTimeout(this.#timer);
    const { call } = this;
    call.attempts = this.shared.call.attempts;
    call.status = this.shared.call.status;
    if (error) this.#reject(error);
    else this.#resolve(value);
  }
}
