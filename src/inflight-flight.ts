/** One flight of work in flight (inflight.ts): its waiters, its outcome, and what it lets go once settled. */
import { toError, Waiter, type Answer, type Caller, type Outcome } from './inflight-waiter.js';

/** A waiter's answer when the flight's outcome is not its to share: it runs its own work. */
export class NotShared extends Error {
  override message = 'the work in flight is not an answer to share';
}

/** What a flight asks of the listing it is in (inflight.ts's `InFlight`). */
export interface FlightList<K, T, M> {
  shares(value: T): boolean;
  unlist(flight: Flight<K, T, M>): void;
}

export class Flight<K, T, M> {
  /** The work's own outcome, for its owner (a flight started with work; one led by its owner or opened has none). */
  result!: Promise<T>;
  // Most flights have one waiter or none: the first is held as it is, a set made when a second joins.
  #waiter: Waiter<T> | undefined;
  #waiters: Set<Waiter<T>> | undefined;
  #outcome: Outcome<T> | undefined;
  #ended = false;
  // Let go once the flight is unlisted (`#letGo`): a flight a stale reference still reaches then holds no call or request of its own.
  #meta: M | undefined;
  #abandoned: ((reason: Error) => void) | undefined;

  /** @internal Made by `InFlight.open` (and `start`), or by `InFlight.get` for a led flight's first waiter. The owner's signal and deadline are kept as they are, without an object of their own. */
  constructor(
    readonly key: K,
    readonly flights: FlightList<K, T, M>,
    meta: M,
    private readonly ownerSignal: AbortSignal | undefined,
    private readonly ownerDeadlineAt: number | undefined,
    abandoned: ((reason: Error) => void) | undefined,
  ) {
    this.#meta = meta;
    this.#abandoned = abandoned;
  }

  /**
   * What the site keeps on the flight (when it started, its shared call), read while the flight is
   * listed; undefined once it settled or was abandoned. A scavenge keeps whatever an old object points
   * to, garbage or not: a settled flight still reached from old garbage (likely a Map's outgrown table)
   * must not keep its call, and through it a whole request, alive into the old space (bench/PHASES.md "What survives scavenges").
   */
  get meta(): M {
    return this.#meta as M;
  }

  /** @internal */
  run(work: () => Promise<T>): void {
    try {
      this.result = work();
    } catch (error) {
      this.result = Promise.reject(toError(error));
    }
    void this.#await(this.result);
  }

  /** Settles with the outcome of `pending`: an async method rather than `then` with two new closures per flight. */
  async #await(pending: Promise<T>): Promise<void> {
    let value: T;
    try {
      value = await pending;
    } catch (error) {
      return this.reject(error);
    }
    this.resolve(value);
  }

  /** The owner's work answered `value` (a flight led by its owner is settled by it). */
  resolve(value: T): void {
    this.#settle({ value });
  }

  /** The owner's work failed. */
  reject(error: unknown): void {
    this.#settle({ error: toError(error) });
  }

  joinable(): boolean {
    return !this.#ended && this.#outcome === undefined && !this.ownerSignal?.aborted;
  }

  /** Waits on this flight as `caller`. */
  join(caller: Caller = {}): Waiter<T> {
    return this.joinWith(caller, undefined);
  }

  /** Waits on this flight as `caller`, its outcome handed to `to` (no promise of the waiter's own; undefined: `answer`). */
  joinWith(caller: Caller, to: Answer<T> | undefined): Waiter<T> {
    const waiter = new Waiter<T>(caller, this, to);
    if (this.#outcome) {
      waiter.settle(this.#answerFor(caller, this.#outcome));
      return waiter;
    }
    if (this.#waiters) this.#waiters.add(waiter);
    else if (!this.#waiter) this.#waiter = waiter;
    else {
      this.#waiters = new Set([this.#waiter, waiter]);
      this.#waiter = undefined;
    }
    waiter.arm();
    return waiter;
  }

  /** @internal A waiter left before the flight settled: the last to leave ends a flight that can be abandoned. */
  leave(waiter: Waiter<T>, reason: Error): void {
    if (this.#waiter === waiter) this.#waiter = undefined;
    else if (!this.#waiters?.delete(waiter) || this.#waiters.size > 0) return;
    const abandoned = this.#abandoned;
    if (!abandoned || this.#outcome) return;
    this.#ended = true;
    this.flights.unlist(this);
    this.#letGo();
    abandoned(reason);
  }

  #settle(outcome: Outcome<T>): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    this.flights.unlist(this);
    this.#letGo();
    const one = this.#waiter;
    const waiters = this.#waiters;
    this.#waiter = this.#waiters = undefined;
    if (one) one.settle(this.#answerFor(one.caller, outcome));
    if (waiters) for (const waiter of waiters) waiter.settle(this.#answerFor(waiter.caller, outcome));
  }

  #letGo(): void {
    this.#meta = undefined;
    this.#abandoned = undefined;
  }

  /** What a waiter is answered: the flight's outcome, unless it is not this waiter's to share. */
  #answerFor(caller: Caller, outcome: Outcome<T>): Outcome<T> {
    if (this.ownerSignal?.aborted) return { error: new NotShared() };
    // The owner ran out of time before this waiter: its answer may have had calls cut short.
    const ownerAt = this.ownerDeadlineAt ?? Infinity;
    if (ownerAt < (caller.deadlineAt ?? Infinity) && performance.now() >= ownerAt) return { error: new NotShared() };
    if (!outcome.error && !this.flights.shares(outcome.value)) return { error: new NotShared() };
    return outcome;
  }
}
