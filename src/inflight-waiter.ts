/**
 * A caller's wait on a flight of work in flight (inflight.ts): settled by the flight, or ended by the
 * caller's own signal or deadline, with one abort listener per signal however many waits it ends.
 */

/** One caller waiting on a flight. */
export interface Caller {
  /** Its abort ends this caller's wait, with `aborted()` (default: the signal's reason). */
  signal?: AbortSignal;
  aborted?: () => Error;
  /** `performance.now()` at which this caller stops waiting, with `expired()`. */
  deadlineAt?: number;
  expired?: () => Error;
}

/** How a flight ended: its value, or its failure. */
export type Outcome<T> = { value: T; error?: undefined } | { error: Error };

/** Where a wait's outcome goes: the waiter's own promise, or what its caller already settles through (an upstream call's answer). */
export interface Answer<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** One caller's wait: settled by the flight, or ended by its own signal, deadline or `end`. */
export class Waiter<T> {
  /** The wait's outcome as a promise (a wait joined with an `Answer` of its own, `Flight.joinWith`, has none). */
  readonly answer: Promise<T>;
  readonly #to: Answer<T>;
  left = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly caller: Caller,
    private readonly flight: { leave(waiter: Waiter<T>, reason: Error): void },
    to?: Answer<T>,
  ) {
    // A caller that settles through an answer of its own (an upstream call's) needs no promise made here.
    const own = to ? undefined : Promise.withResolvers<T>();
    this.#to = to ?? own!;
    this.answer = own?.promise as Promise<T>;
  }

  /** @internal Starts listening to the caller's signal and deadline (ending the wait at once when either already passed). */
  arm(): void {
    const { caller } = this;
    const { signal, deadlineAt } = caller;
    if (signal?.aborted) return this.end(abortReason(caller));
    if (deadlineAt !== undefined && deadlineAt !== Infinity) {
      const left = deadlineAt - performance.now();
      if (left <= 0) return this.end(expiredReason(caller));
      this.#timer = setTimeout(() => this.end(expiredReason(caller)), left);
    }
    if (signal) waitersOf(signal).add(this);
  }

  /** This caller stops waiting, with `reason`; the flight goes on for the others. */
  end(reason: Error): void {
    if (this.left) return;
    this.settle({ error: reason });
    this.flight.leave(this, reason);
  }

  /** @internal */
  settle(outcome: Outcome<T>): void {
    if (this.left) return;
    this.left = true;
    clearTimeout(this.#timer);
    if (this.caller.signal) waitersBySignal.get(this.caller.signal)?.delete(this);
    if (outcome.error) this.#to.reject(outcome.error);
    else this.#to.resolve(outcome.value);
  }
}

/** One abort listener per signal, however many waits it ends (Node warns past ten listeners on one signal). */
const waitersBySignal = new WeakMap<AbortSignal, Set<Leaving>>();
type Leaving = Pick<Waiter<unknown>, 'caller' | 'end'>;

function waitersOf(signal: AbortSignal): Set<Leaving> {
  let waiters = waitersBySignal.get(signal);
  if (!waiters) {
    const listening = (waiters = new Set<Leaving>());
    signal.addEventListener('abort', () => listening.forEach((w) => w.end(abortReason(w.caller))), { once: true });
    waitersBySignal.set(signal, waiters);
  }
  return waiters;
}

function abortReason(caller: Caller): Error {
  return caller.aborted?.() ?? toError(caller.signal?.reason ?? new Error('aborted'));
}

function expiredReason(caller: Caller): Error {
  return caller.expired?.() ?? new Error('the deadline passed before the work in flight answered');
}

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
