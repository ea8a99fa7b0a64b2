import { Flight, type FlightList } from '../../inflight-flight.js';
import type { Caller } from '../../inflight-waiter.js';
import type { Endable, Settles, UpstreamCall } from './call.js';

/**
 * One GET made upstream for every caller of its key (share.ts): the shared call's outcome (`call.to`),
 * and its listing. Most such GETs are a single caller's own reads that nobody joins, so the first
 * caller is settled directly and its end abandons the call, without a flight or a waiter; a flight
 * (inflight-flight.ts) is made when a second caller joins, the first then becoming its waiter like any other.
 */
export class SharedGet implements Settles, Endable, FlightList<string, unknown, SharedGet> {
  /** Waits of every caller once a second joined; undefined while the first is alone. */
  #flight: Flight<string, unknown, SharedGet> | undefined = undefined;
  // The first caller and where its outcome goes, while it is alone; let go once either settles.
  #first: UpstreamCall | undefined;
  #firstTo: Settles | undefined;
  // The shared call, read by who joins while it is listed; let go once settled, so that a stale reference reaches no request.
  #call: UpstreamCall | undefined;
  /** @internal Its caller's list of reads in the listing, while it is listed there. */
  reads: SharedGet[] | undefined = undefined;

  constructor(
    /** The caller its headers speak for ('' for headers that speak for no one caller), and the path with its query. */
    readonly who: string,
    readonly path: string,
    call: UpstreamCall,
    first: UpstreamCall,
    readonly listing: Listing,
  ) {
    this.#call = call;
    this.#first = first;
    this.#firstTo = first.to;
    listing.add(this);
  }

  /** The shared call, while it is listed and unsettled. */
  get call(): UpstreamCall | undefined {
    return this.#call;
  }

  resolve(value: unknown): void {
    if (this.#flight) return this.#flight.resolve(value);
    this.#alone()?.resolve(value);
  }

  reject(error: Error): void {
    if (this.#flight) return this.#flight.reject(error);
    this.#alone()?.reject(error);
  }

  /** The first caller left while alone: its wait ends with `reason`, and the call nobody awaits ends too. */
  end(reason: Error): void {
    const call = this.#call;
    const to = this.#alone();
    if (!to) return;
    to.reject(reason);
    call!.end(reason);
  }

  /** `caller` waits on the shared call, its outcome handed to `to`: the first caller becomes a waiter of the flight made now, if it is still alone. */
  join(caller: Caller, to: Settles): Endable {
    return this.#shared().joinWith(caller, to);
  }

  /** The first caller, still alone, waits as `caller` (its deadline comes before the shared call's timeout). */
  waitAs(caller: Caller): void {
    if (!this.#flight && this.#first) this.#shared(caller);
  }

  shares(): boolean {
    return true;
  }

  /** @internal The flight settled or was abandoned (or the first caller's outcome is taken): nobody joins any more. */
  unlist(): void {
    this.listing.remove(this);
    this.#call = undefined;
  }

  #shared(firstAs: Caller = ANYONE): Flight<string, unknown, SharedGet> {
    if (this.#flight) return this.#flight;
    const call = this.#call!;
    const flight = (this.#flight = new Flight(this.path, this, this, undefined, undefined, (reason) => call.end(reason)));
    const first = this.#first;
    const to = this.#firstTo;
    this.#first = this.#firstTo = undefined;
    if (first && to) first.runs(flight.joinWith(firstAs, to));
    return flight;
  }

  /** The first caller's outcome target, taken once (undefined once taken), and the listing let go. */
  #alone(): Settles | undefined {
    const to = this.#firstTo;
    if (!to) return undefined;
    this.#first = this.#firstTo = undefined;
    this.unlist();
    return to;
  }
}

/** A waiter whose own deadline comes after the shared call's timeout: nothing of its own to arm. */
export const ANYONE: Caller = Object.freeze({});

/**
 * The GETs in flight, by caller and path. A caller's own reads are listed under its key, the same
 * string for all of its request's calls, whose hash is made once; each is found among that caller's
 * few reads by its path, rather than under a key of the caller's hash and the path joined and hashed
 * per call. Reads that speak for no one caller are listed by their path.
 */
export class Listing {
  readonly #byPath = new Map<string, SharedGet>();
  // A caller's reads, listed while it has any: a list is unlisted as it empties, and never used again.
  readonly #byCaller = new Map<string, SharedGet[]>();

  /** The GET listed for `who` under `path`, if any. */
  find(who: string, path: string): SharedGet | undefined {
    if (who === '') return this.#byPath.get(path);
    const reads = this.#byCaller.get(who);
    if (reads) for (const get of reads) if (get.path === path) return get;
    return undefined;
  }

  /** Lists `get`, in place of any GET listed for its caller under its path. */
  add(get: SharedGet): void {
    if (get.who === '') {
      this.#byPath.set(get.path, get);
      return;
    }
    const reads = this.#byCaller.get(get.who);
    if (!reads) {
      this.#byCaller.set(get.who, (get.reads = [get]));
      return;
    }
    get.reads = reads;
    for (let at = 0; at < reads.length; at++) {
      if (reads[at]!.path === get.path) {
        reads[at]!.reads = undefined;
        reads[at] = get;
        return;
      }
    }
    reads.push(get);
  }

  /** Unlists `get` if it is listed (a GET it replaced is not). */
  remove(get: SharedGet): void {
    if (get.who === '') {
      if (this.#byPath.get(get.path) === get) this.#byPath.delete(get.path);
      return;
    }
    const reads = get.reads;
    if (!reads) return;
    get.reads = undefined;
    if (reads.length === 1) return void this.#byCaller.delete(get.who);
    // A caller's reads are in no order: the last takes the place of the one that goes.
    const at = reads.indexOf(get);
    reads[at] = reads[reads.length - 1]!;
    reads.pop();
  }
}
