import { performance } from 'node:perf_hooks';
import type { Endable, Held, Layer, Send, UpstreamCall } from './call.js';
import { passDeadline } from './deadline.js';
import { toError } from '../../inflight-waiter.js';

/**
 * At most `maxInFlight` calls of one operation to one service at once (one layer per service client);
 * the operation's further calls wait their turn, in order, with its deadline and signal (a wait ended
 * by either is the caller's end, which no breaker counts). One request that fans out to hundreds of
 * calls then holds a few of the pool's connections rather than all of them, and cannot by itself push
 * the upstream into the timeouts that would open the breaker for every caller (three admitted documents
 * of a few hundred asset calls each were enough to do it; test/hostile/cost-work.test.ts).
 *
 * Calls of no operation (a shared store's own refreshes) pass straight through. The operation is known
 * by its call budget, one per operation (request-context.ts), kept when a call is detached (scope.ts).
 */
export function lanes(maxInFlight: number): Layer {
  return (next) => {
    // What the operation's budget finds this client's lane by (`CallBudget.laneOf`).
    const owner = {};
    return function inLane(call) {
      const operation = call.scope?.budget;
      if (!operation) return next(call);
      (operation.laneOf<Lane>(owner) ?? operation.keepLane(owner, new Lane(maxInFlight, next))).run(call);
    };
  };
}

/** Default of `lanes`: half the pool's 64 connections per origin (agent.ts); a dashboard of 25 wallets still asks for their positions at once. */
export const DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION = 32;

/** One operation's calls to one service: a call holds its place until its caller has the answer (`UpstreamCall.release`). */
class Lane implements Held {
  #running = 0;
  readonly #waiting: Waiting[] = [];

  constructor(
    readonly max: number,
    readonly next: Send,
  ) {}

  run(call: UpstreamCall): void {
    if (this.#running < this.max) return this.#start(call);
    const waiting = new Waiting(call, this.#waiting);
    // Its caller already left: failed, not queued.
    if (!call.endedBy) this.#waiting.push(waiting);
  }

  #start(call: UpstreamCall): void {
    this.#running += 1;
    call.held = this;
    try {
      this.next(call);
    } catch (error) {
      call.to.reject(toError(error));
    }
  }

  release(): void {
    this.#running -= 1;
    this.#next();
  }

  /** The first waiting call whose time has not run out goes; those whose time ran out (their timers not yet fired) end now. */
  #next(): void {
    for (let turn = this.#waiting.shift(); turn; turn = this.#waiting.shift()) {
      if (turn.call.deadlineAt > performance.now()) {
        turn.go();
        this.#start(turn.call);
        return;
      }
      passDeadline(turn.call);
    }
  }
}

/** A call waiting for its operation's turn: ended (its deadline, its caller's abort) it leaves the line at once. */
class Waiting implements Endable {
  readonly #timer: NodeJS.Timeout | undefined;
  #gone = false;

  constructor(
    readonly call: UpstreamCall,
    readonly line: Waiting[],
  ) {
    if (Number.isFinite(call.deadlineAt)) {
      this.#timer = setTimeout(passDeadline, Math.max(0, call.deadlineAt - performance.now()), call);
    }
    call.runs(this);
  }

  end(reason: Error): void {
    // Past its turn, an end is the next layer's to act on (`UpstreamCall.runs` hands it the reason).
    if (this.#gone) return;
    clearTimeout(this.#timer);
    const at = this.line.indexOf(this);
    if (at >= 0) this.line.splice(at, 1);
    this.call.to.reject(reason);
  }

  /** Its turn came: it stops waiting (the layers below take over the call's end). */
  go(): void {
    this.#gone = true;
    clearTimeout(this.#timer);
  }
}
