/**
 * Work in flight shared by key: the first caller's work (a flight) answers every caller that joins it
 * while it runs. The five places that share work (identical executions, identical upstream GETs, asset
 * copies, wallets' positions, the market index's read) use this helper, each with its own key and work.
 *
 * - A flight is listed under its key until it settles (or is abandoned); who asks meanwhile joins it.
 * - Each waiter has its own signal and deadline: either ends its wait, with its own error, and the
 *   flight goes on for the others. The flight's failure is handed to every waiter.
 * - A flight owned by a caller (an execution, under its request's signal and deadline) is not joined
 *   once that caller left, and its waiters are told `NotShared`: they run their own.
 * - A flight started with `abandoned` ends when its last waiter leaves (an upstream call nobody awaits).
 *
 * Written here because the libraries at hand do not cover it: DataLoader shares within one request,
 * undici's deduplicate interceptor shares HTTP dispatches only, and a memoized promise gives no waiter
 * its own deadline nor tells an abandoned leader from an answer.
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

/** The caller a flight's work belongs to: once it left, the flight's answer is not shared. */
export interface Owner {
  signal?: AbortSignal;
  /** `performance.now()` at which the owner's time ran out (its work then cut short). */
  deadlineAt?: number;
}

export interface StartOptions<M> {
  owner?: Owner;
  /** What the site needs to know about the flight before joining it (when it started, its call). */
  meta: M;
  /** Ends the work when its last waiter leaves before it settles; without it the work runs on. */
  abandoned?: (reason: Error) => void;
}

/** A waiter's answer when the flight's outcome is not its to share: it runs its own work. */
export class NotShared extends Error {
  override message = 'the work in flight is not an answer to share';
}

type Outcome<T> = { value: T; error?: undefined } | { error: Error };

export class InFlight<K, T, M = undefined> {
  readonly #flights = new Map<K, Flight<K, T, M>>();

  /** @param shares whether a settled flight's value answers its waiters (default: every value). */
  constructor(readonly shares: (value: T) => boolean = () => true) {}

  /** The flight a caller may join now: listed, its owner still there, not abandoned. */
  get(key: K): Flight<K, T, M> | undefined {
    const flight = this.#flights.get(key);
    return flight?.joinable() ? flight : undefined;
  }

  get size(): number {
    return this.#flights.size;
  }

  /** Starts `work` under `key` (in place of any flight listed there), listed until it settles. */
  start(key: K, work: () => Promise<T>, options: StartOptions<M>): Flight<K, T, M> {
    const flight = new Flight(key, this, options);
    this.#flights.set(key, flight);
    flight.run(work);
    return flight;
  }

  /** The answer of the flight listed under `key`, started by `work` when there is none. */
  share(this: InFlight<K, T, undefined>, key: K, work: () => Promise<T>, caller: Caller = {}): Promise<T> {
    return (this.get(key) ?? this.start(key, work, { meta: undefined })).join(caller).answer;
  }

  /** @internal A flight settled or was abandoned: nobody joins it any more. */
  unlist(flight: Flight<K, T, M>): void {
    if (this.#flights.get(flight.key) === flight) this.#flights.delete(flight.key);
  }
}

export class Flight<K, T, M> {
  /** The work's own outcome, for its owner. */
  result!: Promise<T>;
  readonly meta: M;
  // Made when the first waiter joins: most executions' flights are never joined.
  #waiters: Set<Waiter<T>> | undefined;
  readonly #owner: Owner | undefined;
  readonly #abandoned: ((reason: Error) => void) | undefined;
  #outcome: Outcome<T> | undefined;
  #ended = false;

  constructor(
    readonly key: K,
    readonly flights: InFlight<K, T, M>,
    options: StartOptions<M>,
  ) {
    this.meta = options.meta;
    this.#owner = options.owner;
    this.#abandoned = options.abandoned;
  }

  /** @internal */
  run(work: () => Promise<T>): void {
    try {
      this.result = work();
    } catch (error) {
      this.result = Promise.reject(toError(error));
    }
    this.result.then(
      (value) => this.#settle({ value }),
      (error: unknown) => this.#settle({ error: toError(error) }),
    );
  }

  joinable(): boolean {
    return !this.#ended && this.#outcome === undefined && !this.#owner?.signal?.aborted;
  }

  /** Waits on this flight as `caller`. */
  join(caller: Caller = {}): Waiter<T> {
    const waiter = new Waiter<T>(caller, this);
    if (this.#outcome) {
      waiter.settle(this.#answerFor(caller, this.#outcome));
      return waiter;
    }
    (this.#waiters ??= new Set()).add(waiter);
    waiter.arm();
    return waiter;
  }

  /** @internal A waiter left before the flight settled: the last to leave ends a flight that can be abandoned. */
  leave(waiter: Waiter<T>, reason: Error): void {
    const waiters = this.#waiters;
    if (!waiters?.delete(waiter) || waiters.size > 0 || !this.#abandoned || this.#outcome) return;
    this.#ended = true;
    this.flights.unlist(this);
    this.#abandoned(reason);
  }

  #settle(outcome: Outcome<T>): void {
    this.#outcome = outcome;
    this.flights.unlist(this);
    const waiters = this.#waiters;
    if (!waiters) return;
    this.#waiters = undefined;
    for (const waiter of waiters) waiter.settle(this.#answerFor(waiter.caller, outcome));
  }

  /** What a waiter is answered: the flight's outcome, unless it is not this waiter's to share. */
  #answerFor(caller: Caller, outcome: Outcome<T>): Outcome<T> {
    const owner = this.#owner;
    if (owner?.signal?.aborted) return { error: new NotShared() };
    // The owner ran out of time before this waiter: its answer may have had calls cut short.
    const ownerAt = owner?.deadlineAt ?? Infinity;
    if (ownerAt < (caller.deadlineAt ?? Infinity) && performance.now() >= ownerAt) return { error: new NotShared() };
    if (!outcome.error && !this.flights.shares(outcome.value)) return { error: new NotShared() };
    return outcome;
  }
}

/** One caller's wait: settled by the flight, or ended by its own signal, deadline or `end`. */
export class Waiter<T> {
  readonly #answer = Promise.withResolvers<T>();
  readonly answer = this.#answer.promise;
  left = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly caller: Caller,
    private readonly flight: { leave(waiter: Waiter<T>, reason: Error): void },
  ) {}

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
    if (outcome.error) this.#answer.reject(outcome.error);
    else this.#answer.resolve(outcome.value);
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

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
