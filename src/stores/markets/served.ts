import { freshnessAt, type Freshness, type FreshnessSource, type Market } from '../../models/index.js';
import type { Logger } from '../../logger.js';
import { type CallScope, type FreshnessBound, untilDeadline } from '../../operation/index.js';
import { accepted } from '../freshness.js';
import { INDEX_PAGE_SIZE } from './reader.js';
import type { IndexRefresher } from './refresher.js';
import type { Snapshot } from './snapshot.js';

/**
 * How fresh the copy an answer came from is: a `freshness` field reads this. `CACHE` for the shared
 * copy; `ORIGIN` when this operation's `Cache-Control` bound had it re-read (and waited for it);
 * `STALE` when it is older than `staleAfterMs` (the refreshes since failed) or the bound's re-read failed.
 */
export interface IndexFreshness extends Freshness {
  /** When the listing served was read from the markets service. */
  asOf: Date;
}

/** The snapshot one operation is served, and its source when the operation's bound decided it (else by age). */
export interface Served {
  snapshot: Snapshot;
  source: FreshnessSource | null;
}

export interface ServingOptions {
  logger: Logger;
  staleAfterMs: number;
  minClientRefreshAgeMs: number;
  now: () => number;
}

/**
 * Which snapshot each operation is served, and how fresh it is: the one held, unless the client's
 * bound (`scope.freshness`) asks for a newer one. Decided at the operation's first lookup; one operation
 * is served one snapshot throughout.
 */
export class ServedSnapshots {
  // What each bounded operation is served, decided at its first lookup.
  readonly #served = new WeakMap<FreshnessBound, Promise<Served>>();
  readonly #settled = new WeakMap<FreshnessBound, Served>();

  readonly #refresher: IndexRefresher;
  readonly #o: ServingOptions;

  constructor(refresher: IndexRefresher, options: ServingOptions) {
    this.#refresher = refresher;
    this.#o = options;
  }

  /** The snapshot an operation is served: the one held, unless its client's bound asks for a newer one. */
  snapshotFor(scope: CallScope | undefined): Promise<Served> | Served {
    const bound = scope?.freshness;
    const { snapshot } = this.#refresher;
    if (!bound) return snapshot ? { snapshot, source: null } : this.#refresher.current(scope?.deadline).then((built) => ({ snapshot: built, source: null }));
    let pending = this.#served.get(bound);
    if (!pending) {
      pending = this.#bounded(bound, scope);
      this.#served.set(bound, pending);
      // Registered before any lookup awaits it: fields read `settled` after their lookup resolved.
      pending.then((decided) => this.#settled.set(bound, decided), () => undefined);
    }
    return pending;
  }

  /** Counts `count` answers from `held` in the operation's ledger, when it keeps one. */
  counted(scope: CallScope | undefined, held: Served, count: number): Snapshot {
    const ledger = scope?.ledger;
    if (ledger) {
      const use = this.freshness(held.snapshot, held.source).stale ? 'STALE' : 'CACHE';
      for (let i = 0; i < count; i++) ledger.cacheUse(use);
    }
    return held.snapshot;
  }

  freshness(held: Snapshot, source: FreshnessSource | null): IndexFreshness {
    const refresher = this.#refresher;
    const o = this.#o;
    const aged = source === null && ((refresher.refused && held === refresher.snapshot) || o.now() - held.builtAt > o.staleAfterMs);
    return freshnessAt(source ?? (aged ? 'STALE' : 'CACHE'), held.builtAt);
  }

  /** The freshness of a market this index served to the operation of `scope`; null for a market that is not the index's. */
  freshnessOf(market: Market, scope: CallScope | undefined): IndexFreshness | null {
    const held = this.#refresher.ownerOf(market);
    if (!held) return null;
    // Settled (the operation's lookups awaited it) by the time a field reads it; unsettled: no bound applied yet.
    const decided = scope?.freshness && this.#settled.get(scope.freshness);
    return this.freshness(held, decided && decided.snapshot === held ? decided.source : null);
  }

  async #bounded(bound: FreshnessBound, scope: CallScope | undefined): Promise<Served> {
    const refresher = this.#refresher;
    const o = this.#o;
    const budget = scope?.budget;
    const held = refresher.snapshot;
    if (!held) return { snapshot: await refresher.current(scope?.deadline), source: 'ORIGIN' };
    if (accepted(bound, held.builtAt, o.now, o.minClientRefreshAgeMs)) return { snapshot: held, source: null };
    // The read is shared with every caller that joins it (other requests, the background refresh): it
    // must not fail for them when this operation's budget runs out halfway. So the operation pays for a
    // whole read up front (the pages the last one took), or it is served the index held, flagged STALE.
    const pages = Math.max(1, Math.ceil(held.list.length / INDEX_PAGE_SIZE));
    if (budget && budget.limit - budget.used < pages) return { snapshot: held, source: 'STALE' };
    for (let i = 0; i < pages; i++) budget?.spend('markets');
    try {
      // Its wait ends at its deadline; the read goes on for whoever joined it.
      await untilDeadline(refresher.refresh(), scope?.deadline, 'markets');
      return { snapshot: refresher.snapshot!, source: 'ORIGIN' };
    } catch (err) {
      o.logger.warn({ err, ageSeconds: Math.round((o.now() - held.builtAt) / 1000) }, "market index re-read for a client's Cache-Control failed; serving the previous index");
      const latest = refresher.snapshot;
      return { snapshot: latest ?? held, source: latest && latest !== held ? null : 'STALE' };
    }
  }
}
