import type { CopySource } from '../models/freshness.js';
import type { CallBudget } from './budget.js';
import type { ServiceName } from '../upstream/errors.js';

/** One upstream call as the ledger shows it: the route template, never a URL, header, query value or host. */
export interface LedgerCall {
  service: ServiceName;
  /** `GET /v0/assets/{id}`: the template, no ids. */
  route: string;
  /** The final answer's HTTP status; null when none arrived (deadline, connection failure, open breaker). */
  status: number | null;
  durationMs: number;
  attempts: number;
}

/** `extensions.upstream` of a response (README.md, "The upstream ledger"). */
export interface LedgerReport {
  calls: LedgerCall[];
  cache: { hits: number; stale: number; fallback: number };
  budget: { used: number; limit: number } | null;
}

/**
 * What one operation cost upstream, written down only when its client asked (`X-Gateway-Debug: 1`,
 * where allowed): the HTTP layer adds each call it finishes, the shared stores each lookup they serve
 * from a copy. Carried by the operation's `CallScope`; absent otherwise, so nothing is recorded or allocated.
 */
export class UpstreamLedger {
  readonly #calls: LedgerCall[] = [];
  readonly #cache = { hits: 0, stale: 0, fallback: 0 };

  call(call: { service: ServiceName; route: string; status?: number; durationMs: number; attempts: number }): void {
    this.#calls.push({
      service: call.service,
      route: call.route,
      status: call.status ?? null,
      durationMs: Math.round(call.durationMs * 10) / 10,
      attempts: call.attempts,
    });
  }

  /** A lookup a shared store served from a copy, without an upstream call of this operation's own. */
  cacheUse(source: CopySource): void {
    if (source === 'CACHE') this.#cache.hits += 1;
    else if (source === 'STALE') this.#cache.stale += 1;
    else this.#cache.fallback += 1;
  }

  report(budget: CallBudget | undefined): LedgerReport {
    return {
      calls: this.#calls.slice(),
      cache: { ...this.#cache },
      budget: budget ? { used: budget.used, limit: budget.limit } : null,
    };
  }
}
