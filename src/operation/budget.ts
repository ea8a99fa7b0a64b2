import { UpstreamError, type ServiceName } from '../upstream/errors.js';

/**
 * How many upstream calls one GraphQL operation may make. Lists, aliases and `nodes(ids:)` multiply
 * calls in ways a static cost limit cannot see; this bounds the fan-out one cheap request can cause
 * (and so the share of the pool, the breakers and the upstream rate limits it can take from others).
 * One per operation, carried by its `CallScope` to every call made for it.
 */
export class CallBudget {
  #used = 0;
  /** The operation's lane to each service (transport/lanes.ts), by the client's lane layer: owner, lane, owner, lane. */
  #lanes: object[] | undefined = undefined;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  /** Counts one call; throws `TOO_MANY_CALLS` once the budget is spent. Called before every upstream call. */
  spend(service: ServiceName): void {
    this.#used += 1;
    if (this.#used > this.limit) throw this.#spent(service);
  }

  /** Throws `TOO_MANY_CALLS` when no call is left, without counting one. */
  assertLeft(service: ServiceName): void {
    if (this.#used >= this.limit) throw this.#spent(service);
  }

  /** The lane `owner` (one service client's lane layer) keeps for this operation, if any: a screen calls two or three services, so a short list beats a WeakMap entry per operation. */
  laneOf<L extends object>(owner: object): L | undefined {
    const lanes = this.#lanes;
    if (lanes) for (let i = 0; i < lanes.length; i += 2) if (lanes[i] === owner) return lanes[i + 1] as L;
    return undefined;
  }

  /** Keeps `lane` as `owner`'s lane for this operation; returns it. */
  keepLane<L extends object>(owner: object, lane: L): L {
    (this.#lanes ??= []).push(owner, lane);
    return lane;
  }

  #spent(service: ServiceName): UpstreamError {
    return new UpstreamError({
      service,
      kind: 'TOO_MANY_CALLS',
      retryable: false,
      message: `this operation needs more than ${this.limit} upstream calls`,
    });
  }
}
