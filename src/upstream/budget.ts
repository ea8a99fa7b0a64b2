import { AsyncLocalStorage } from 'node:async_hooks';
import { UpstreamError, type ServiceName } from './errors.js';

/**
 * How many upstream calls one GraphQL operation may make. Lists, aliases and `nodes(ids:)` multiply
 * calls in ways a static cost limit cannot see; this bounds the fan-out one cheap request can cause
 * (and so the share of the pool, the breakers and the upstream rate limits it can take from others).
 */
export class CallBudget {
  #used = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  /** Counts one call; false once the budget is spent. */
  take(): boolean {
    this.#used += 1;
    return this.#used <= this.limit;
  }
}

const current = new AsyncLocalStorage<CallBudget>();

/** Runs `fn` (an operation's execution) with `budget` counting every upstream call it makes, however deep. */
export function withCallBudget<T>(budget: CallBudget, fn: () => T): T {
  return current.run(budget, fn);
}

/** Throws when the current operation has no upstream call left, without counting one. */
export function assertCallLeft(service: ServiceName): void {
  const budget = current.getStore();
  if (budget && budget.used >= budget.limit) throw overBudget(service, budget);
}

/** Called before every upstream call; throws once the current operation has spent its budget. */
export function spendCall(service: ServiceName): void {
  const budget = current.getStore();
  if (budget && !budget.take()) throw overBudget(service, budget);
}

function overBudget(service: ServiceName, budget: CallBudget): UpstreamError {
  return new UpstreamError({
    service,
    kind: 'TOO_MANY_CALLS',
    retryable: false,
    message: `this operation needs more than ${budget.limit} upstream calls`,
  });
}
