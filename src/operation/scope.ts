import type { ServiceName } from '../upstream/errors.js';
import type { CallBudget } from './budget.js';
import type { OperationDeadline } from './deadline.js';
import type { UpstreamLedger } from './ledger.js';

/**
 * What one GraphQL operation hands to every upstream call made for it. Built once per operation by
 * the per-request root (`src/request-context.ts`), held by the request's data sources (`src/sources/`),
 * and given to each client method, which passes it to the transport (`upstream/transport/`), where
 * each part is enforced on every call. Passed explicitly, never held in async-local storage: the call
 * path shows what an operation's calls share.
 *
 * Meant to grow: a trace context belongs here too, as an optional field that the HTTP layer reads the same way.
 */
export interface CallScope {
  /**
   * Aborts the calls made for this operation alone (the client went away, or completed the operation
   * over WebSocket). Absent: only the per-call timeout ends a call.
   */
  readonly signal?: AbortSignal;
  /** Counts every call the operation makes; past it, calls fail with `TOO_MANY_CALLS`. Absent: not counted. */
  readonly budget?: CallBudget;
  /**
   * The operation's deadline: each call gets at most the time left, and fails with `DEADLINE` when it
   * runs out. Absent: only the per-call timeout applies.
   */
  readonly deadline?: OperationDeadline;
  /** Where the operation's calls and cache uses are written down, when the client asked for them (`X-Gateway-Debug`). */
  readonly ledger?: UpstreamLedger;
  /**
   * The client's bound on the age of the shared copies (market index, asset cache) this operation may
   * be served (`Cache-Control: max-age=N` / `no-cache`). Absent: the stores' own time-to-live decide.
   */
  readonly freshness?: FreshnessBound;
  /** The request's `X-Request-Id`: sent on each of its calls, so an upstream's logs name the request that asked. */
  readonly requestId?: string;
}

/**
 * "Serve me nothing fetched more than `maxAgeMs` before this operation started" (`no-cache` is 0: nothing fetched before it).
 * The moment is fixed per store clock at the first lookup, so what the operation itself fetched (or
 * joined) always passes and one operation never refetches the same copy twice.
 */
export class FreshnessBound {
  readonly #anchors = new Map<() => number, number>();

  constructor(readonly maxAgeMs: number) {}

  /** Whether a copy fetched at `fetchedAt` (on the clock `now`) is young enough for this operation. */
  accepts(fetchedAt: number, now: () => number): boolean {
    let anchor = this.#anchors.get(now);
    if (anchor === undefined) this.#anchors.set(now, (anchor = now()));
    // An age of exactly `maxAgeMs` is still acceptable (RFC 9111: "less than or equal to").
    return fetchedAt >= anchor - this.maxAgeMs;
  }
}

/**
 * The scope for a call that must finish even when the operation's client goes away or its deadline
 * passes: a write (its outcome would be unknown), or a fetch a shared store serves to other requests
 * too (a request waiting on it stops at its own deadline: `untilDeadline`). Still counted in the
 * operation's budget and ledger.
 */
export function detached(scope: CallScope | undefined): CallScope {
  if (!scope?.signal && !scope?.deadline) return scope ?? {};
  const { signal: _signal, deadline: _deadline, ...rest } = scope;
  return rest;
}

/**
 * Throws when the operation may start no call to `service`: its budget is spent (`TOO_MANY_CALLS`) or
 * its deadline passed (`DEADLINE`). Asked before work other requests may join, so that the refusal is
 * this operation's alone.
 */
export function assertMayCall(scope: CallScope | undefined, service: ServiceName): void {
  scope?.budget?.assertLeft(service);
  scope?.deadline?.assertLeft(service);
}
