/**
 * Work in flight shared by key: the first caller's work (a flight) answers every caller that joins it
 * while it runs. The five places that share work (identical executions, identical upstream GETs, asset
 * copies, wallets' positions, the market index's read) use this helper, each with its own key and work
 * (the upstream GETs its `Flight` alone, made once a second caller joins: transport/shared-get.ts).
 *
 * - A flight is listed under its key until it settles (or is abandoned); who asks meanwhile joins it.
 * - Each waiter has its own signal and deadline: either ends its wait, with its own error, and the
 *   flight goes on for the others. The flight's failure is handed to every waiter.
 * - A flight owned by a caller (started with an `owner`, or led by one: an execution, under its
 *   request's signal and deadline) is not joined once that caller left, and its waiters are told
 *   `NotShared`: they run their own.
 * - A flight started with `abandoned` ends when its last waiter leaves (an upstream call nobody awaits).
 * - Work its owner began and settles itself (`lead`, an execution) is listed as the owner: its flight
 *   is made when a first waiter joins, most executions being joined by none.
 *
 * Written here because the libraries at hand do not cover it: DataLoader shares within one request,
 * undici's deduplicate interceptor shares HTTP dispatches only, and a memoized promise gives no waiter
 * its own deadline nor tells an abandoned leader from an answer.
 */
import { Flight } from './inflight-flight.js';

export { toError, Waiter, type Answer, type Caller } from './inflight-waiter.js';
export { Flight, NotShared } from './inflight-flight.js';

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

/** How a site reads the owner it leads a flight as (an object it already holds, such as a request's context). */
export interface Owners<O> {
  signal(owner: O): AbortSignal | undefined;
  /** `performance.now()` at which the owner's time runs out. */
  deadlineAt(owner: O): number | undefined;
}

/**
 * A key's place in a listing, emptied as what it lists leaves. When a Map that lives long outgrows its
 * table, V8 leaves the old table, entries and all, in the old space until a full collection, and every
 * scavenge keeps alive what such garbage points to: an owner (a request's whole context) or a settled
 * flight's value listed directly would be copied and promoted with it (test/inflight-scavenge.test.ts).
 */
class Listed<V> {
  constructor(public item: V | undefined) {}
}

export class InFlight<K, T, M = undefined, O extends object = object> {
  // A flight led by its owner (`lead`) is listed as the owner itself until a first waiter joins it.
  readonly #flights = new Map<K, Listed<Flight<K, T, M> | O>>();
  // The flights made for led owners' first waiters, by owner: its settling reaches them even once another is listed.
  readonly #joined = new WeakMap<O, Flight<K, T, M>>();

  /**
   * @param shares whether a settled flight's value answers its waiters (default: every value).
   * @param owners how the owners of led flights are read (needed by `lead` only).
   */
  constructor(
    readonly shares: (value: T) => boolean = () => true,
    readonly owners?: Owners<O>,
  ) {}

  /** The flight a caller may join now: listed, its owner still there, not abandoned. */
  get(key: K): Flight<K, T, M> | undefined {
    const entry = this.#flights.get(key);
    const listed = entry?.item;
    if (listed === undefined || listed instanceof Flight) return listed?.joinable() ? listed : undefined;
    const signal = this.owners!.signal(listed);
    if (signal?.aborted) return undefined;
    // A led flight's first waiter: its flight is made now, most never being joined.
    const flight = new Flight(key, this, undefined as M, signal, this.owners!.deadlineAt(listed), undefined);
    entry!.item = flight;
    this.#joined.set(listed, flight);
    return flight;
  }

  get size(): number {
    return this.#flights.size;
  }

  /** Starts `work` under `key` (in place of any flight listed there), listed until it settles. */
  start(key: K, work: () => Promise<T>, options: StartOptions<M>): Flight<K, T, M> {
    const flight = this.open(key, options);
    flight.run(work);
    return flight;
  }

  /**
   * Lists under `key` (in place of any flight listed there) a flight whose work the caller runs and
   * settles itself with the flight's `resolve` or `reject` (an upstream call that settles through a
   * callback: no promise to await per flight).
   */
  open(key: K, options: StartOptions<M>): Flight<K, T, M> {
    const flight = new Flight(key, this, options.meta, options.owner?.signal, options.owner?.deadlineAt, options.abandoned);
    this.#list(key, flight);
    return flight;
  }

  /**
   * Lists under `key` (in place of any flight listed there) work that `owner` already began, until the
   * owner settles it with `resolve` or `reject`: only its place in the listing is made, its flight when a waiter joins.
   */
  lead(key: K, owner: O): void {
    this.#list(key, owner);
  }

  /** The work `owner` leads under `key` answered `value`: its waiters, if any joined, get it. */
  resolve(key: K, owner: O, value: T): void {
    this.#ledFlight(key, owner)?.resolve(value);
  }

  /** The work `owner` leads under `key` failed: its waiters, if any joined, learn it. */
  reject(key: K, owner: O, error: unknown): void {
    this.#ledFlight(key, owner)?.reject(error);
  }

  /** Unlists the work `owner` led under `key`: the flight made for its waiters, if one joined. */
  #ledFlight(key: K, owner: O): Flight<K, T, M> | undefined {
    if (this.#unlisted(key, owner)) return undefined;
    const flight = this.#joined.get(owner);
    if (flight) this.#joined.delete(owner);
    return flight;
  }

  /** @internal A flight settled or was abandoned: nobody joins it any more. */
  unlist(flight: Flight<K, T, M>): void {
    this.#unlisted(flight.key, flight);
  }

  /** Lists `item` under `key`, in place of whatever was listed there. */
  #list(key: K, item: Flight<K, T, M> | O): void {
    const entry = this.#flights.get(key);
    if (entry) entry.item = item;
    else this.#flights.set(key, new Listed(item));
  }

  /** Unlists `item` if it is what `key` lists, its place emptied first; whether it was. */
  #unlisted(key: K, item: Flight<K, T, M> | O): boolean {
    const entry = this.#flights.get(key);
    if (entry?.item !== item) return false;
    entry.item = undefined;
    this.#flights.delete(key);
    return true;
  }
}
