import type { ServiceName } from '../errors.js';
import type { CallScope } from '../../operation/index.js';

/**
 * One upstream call as it passes through the transport layers: what to send, and what the layers
 * learn and decide about it. One object per call, so that no layer needs a closure or a promise of its
 * own per call: a layer that holds something while the call runs puts it here, and it is let go when
 * the answer arrives (`release`, `stopTimer`). The outcome goes to `to` (its caller's one promise, or
 * the flight of a shared call), which whoever settles the call calls once.
 */

/** Where a call's outcome goes: its caller's answer (`Promise.withResolvers`, the ledger's record) or the flight waiting on a shared call. */
export interface Settles {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Something in progress for a call that ending the call must stop: its dispatch, its pause before a retry, its wait on a shared call. */
export interface Endable {
  end(reason: Error): void;
}

/** What ends a call at its time (timeout.ts), stopped once its answer arrived. */
export interface CallTimer {
  stop(call: UpstreamCall): void;
}

/** The breaker's counts of a call made while its circuit was closed (breaker.ts): its outcome is written down as the dispatch step settles it. */
export interface Guard {
  succeeded(): void;
  /** Writes the failure down (which may open the circuit); resolves to the failure its caller sees. */
  failed(error: unknown): Promise<never>;
}

/** A place a call holds while its caller waits (its turn in its operation's lane: lanes.ts). */
export interface Held {
  release(): void;
}

export interface CallSpec {
  service: ServiceName;
  method: 'GET' | 'POST';
  /** Path with its prefix and query, as sent. */
  path: string;
  /** Lower-case names; never logged. */
  headers: Record<string, string>;
  /** The caller the headers speak for, by a hash of its credentials: its identical GETs in flight share one call (share.ts). Undefined: the headers' own hash. */
  caller: string | undefined;
  body: string | undefined;
  /** Route template (`GET /v0/assets/{id}`): metrics, ledger and body cap. */
  route: string;
  /** The largest 2xx body this call accepts. */
  maxBytes: number;
  /** Learns the size of a 2xx body; such a call is never shared (its caller reports its own bytes). */
  onBytes: ((bytes: number) => void) | undefined;
  /** What its caller makes of the parsed answer, applied as it is handed over (the ledger's record): its throw is the caller's failure. Undefined: the answer as parsed. */
  map: ((raw: never) => unknown) | undefined;
  /** The operation the call is made for; undefined for a call that answers to no one operation (a shared call). */
  scope: CallScope | undefined;
  /** Sent as `X-Request-Id`: the request that made the call (a shared call: the one that started it). */
  requestId: string | undefined;
}

export class UpstreamCall implements CallSpec, Endable {
  readonly service: ServiceName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly caller: string | undefined;
  readonly body: string | undefined;
  readonly route: string;
  readonly maxBytes: number;
  readonly onBytes: ((bytes: number) => void) | undefined;
  readonly map: ((raw: never) => unknown) | undefined;
  readonly scope: CallScope | undefined;
  readonly requestId: string | undefined;
  /** Requests sent (2 when the connection-level retry happened; 0 when none was, e.g. an open breaker). */
  attempts = 0;
  /** HTTP status of the final answer; undefined while none arrived. */
  status: number | undefined = undefined;
  /** `performance.now()` at which the operation's deadline passes (deadline.ts); Infinity: none. */
  deadlineAt = Infinity;
  /** `performance.now()` at which the call's own timeout ends it (timeout.ts); Infinity until it is armed. */
  endsAt = Infinity;
  /** Why the call was ended before its answer (its timeout, its operation's deadline, its caller's abort); set once. */
  endedBy: Error | undefined = undefined;
  /** The calls its caller's abort ends, this one among them while it runs (cancel.ts). */
  listening: Set<UpstreamCall> | undefined = undefined;
  /** The line of young calls it is in until its signal is listened to (cancel.ts), and its place there. */
  line: (UpstreamCall | undefined)[] | undefined = undefined;
  lineAt = 0;
  held: Held | undefined = undefined;
  timer: CallTimer | undefined = undefined;
  guard: Guard | undefined = undefined;
  /** The shared call this one waits on (share.ts): its answer's status and attempts are this call's (`learn`). */
  sharedWith: UpstreamCall | undefined = undefined;
  /** Takes the call's outcome: set by who made the call before it is sent, and wrapped by the ledger. */
  to: Settles = NOWHERE;
  #running: Endable | undefined = undefined;

  constructor(spec: CallSpec) {
    this.service = spec.service;
    this.method = spec.method;
    this.path = spec.path;
    this.headers = spec.headers;
    this.caller = spec.caller;
    this.body = spec.body;
    this.route = spec.route;
    this.maxBytes = spec.maxBytes;
    this.onBytes = spec.onBytes;
    this.map = spec.map;
    this.scope = spec.scope;
    this.requestId = spec.requestId;
  }

  /** The same request as a call of its own that answers to no one caller (no scope), its body's size reported to no one, its answer handed over as parsed: a shared call (share.ts). */
  forEveryone(): UpstreamCall {
    return new UpstreamCall({
      service: this.service,
      method: this.method,
      path: this.path,
      headers: this.headers,
      caller: this.caller,
      body: this.body,
      route: this.route,
      maxBytes: this.maxBytes,
      onBytes: undefined,
      map: undefined,
      scope: undefined,
      requestId: this.requestId,
    });
  }

  /** Ends the call: whatever runs it now (or next) rejects with `reason`. The first reason wins. */
  end(reason: Error): void {
    if (this.endedBy) return;
    this.endedBy = reason;
    this.#running?.end(reason);
  }

  /** `work` now runs this call; it is ended at once when the call already was. */
  runs(work: Endable): void {
    this.#running = work;
    if (this.endedBy) work.end(this.endedBy);
  }

  /** Its caller has the answer: the abort and the lane it was listed in let it go. */
  release(): void {
    this.listening?.delete(this);
    this.listening = undefined;
    if (this.line) this.line[this.lineAt] = undefined;
    this.line = undefined;
    this.held?.release();
    this.held = undefined;
  }

  /** Takes the status and attempts of the shared call it waited on, if any, as its own: read once its caller has the answer. */
  learn(): void {
    const shared = this.sharedWith;
    if (!shared) return;
    this.attempts = shared.attempts;
    this.status = shared.status;
  }

  /** Its last request is over: nothing is left for its timer to end. */
  stopTimer(): void {
    this.timer?.stop(this);
    this.timer = undefined;
  }
}

/** Nothing took the call's outcome yet: a layer that settles a call it was never given is a bug, not a silent drop. */
const NOWHERE: Settles = {
  resolve: () => {
    throw new Error('an upstream call settled before anyone took its outcome');
  },
  reject: (error) => {
    throw error;
  },
};

/** A call through the layers below: its outcome, the parsed answer or the failure, goes to `call.to`. A synchronous throw is a failure too. */
export type Send = (call: UpstreamCall) => void;

/** One transport concern around the layers below it, in the style of undici's `Dispatcher.compose` interceptors. */
export type Layer = (next: Send) => Send;

/** `send` inside `layers`, the first outermost; a disabled concern (`null`) costs nothing per call. Composed once per client. */
export function compose(layers: ReadonlyArray<Layer | null>, send: Send): Send {
  return layers.reduceRight<Send>((next, layer) => (layer ? layer(next) : next), send);
}
