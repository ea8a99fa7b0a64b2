import { UpstreamError, type ServiceName } from '../upstream/errors.js';

/**
 * How many upstream calls one GraphQL operation may make. Lists, aliases and `nodes(ids:)` multiply
 * calls in ways a static cost limit cannot see; this bounds the fan-out one cheap request can cause
 * (and so the share of the pool, the breakers and the upstream rate limits it can take from others).
 * One per operation, carried by its `CallScope` to every call made for it.
 */
export class CallBudget {
  #used = 0;

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

  #spent(service: ServiceName): UpstreamError {
    return new UpstreamError({
      service,
      kind: 'TOO_MANY_CALLS',
      retryable: false,
      message: `this operation needs more than ${this.limit} upstream calls`,
    });
  }
}
