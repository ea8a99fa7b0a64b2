import type { Logger } from '../../logger.js';
import type { PriceTick } from '../../models/index.js';
import { FreshnessBound } from '../../operation/index.js';
import type { AssetCache } from '../asset-cache.js';
import type { Leases } from './leases.js';
import { staleTick, tickOf } from './tick.js';

/** How a round's reads went, for the metrics. */
export interface RoundOutcome {
  /** Reads that asked the assets service. */
  upstream: number;
  /** The ids of those reads. */
  asked: string[];
  /** Reads a copy fetched moments before answered (a request had just read the price). */
  cached: number;
  failed: number;
}

export interface PollerDeps {
  intervalMs: number;
  assetCache: Pick<AssetCache, 'get'>;
  leases: Leases;
  logger: Logger;
  /** The assets watched on this replica now. */
  watched: () => string[];
  /** The last tick known of an asset (the stale answer when a read fails). */
  latest: (assetId: string) => PriceTick | null;
  publish: (ticks: PriceTick[]) => void;
  onRound: (outcome: RoundOutcome, slot: number, read: readonly string[]) => void;
}

/**
 * Reads the watched assets once per slot (`floor(now / interval)`), at the start of each slot, those
 * whose lease this replica wins (`leases.ts`), through the asset cache: a copy fetched within the last
 * half interval (a request just read it) serves instead of a call, and each read refreshes the copy
 * requests are served. Runs only while something is watched: `wake` starts it, a round with nothing
 * watched stops it, so polling of an asset ends at the first round after its last subscriber left.
 */
export function createPoller(deps: PollerDeps) {
  const { intervalMs, assetCache, leases, logger } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let closed = false;

  const schedule = () => {
    if (closed || timer) return;
    // A few ms into the slot: a replica whose timer fires early never claims the slot before.
    const wait = intervalMs - (Date.now() % intervalMs) + 2;
    timer = setTimeout(() => void round(), wait);
    timer.unref();
  };

  async function read(assetId: string, bound: FreshnessBound, outcome: RoundOutcome): Promise<PriceTick | null> {
    try {
      const lookup = await assetCache.get(assetId, 'price', { freshness: bound });
      if (lookup.asked) {
        outcome.upstream++;
        outcome.asked.push(assetId);
      } else {
        outcome.cached++;
      }
      const tick = tickOf(lookup.asset);
      if (tick?.stale) outcome.failed++;
      return tick;
    } catch (err) {
      outcome.failed++;
      logger.debug({ err, assetId }, 'live prices: read failed; subscribers get the last price, flagged stale');
      const last = deps.latest(assetId);
      return last && staleTick(last);
    }
  }

  async function round(): Promise<void> {
    timer = null;
    const ids = deps.watched();
    if (ids.length === 0 || closed || running) return;
    running = true;
    const slot = Math.floor(Date.now() / intervalMs);
    try {
      const mine = await leases.claim(ids, slot);
      const outcome: RoundOutcome = { upstream: 0, asked: [], cached: 0, failed: 0 };
      // One bound for the round: a copy younger than half an interval is a read this round can reuse.
      const bound = new FreshnessBound(intervalMs / 2);
      const ticks = (await Promise.all(mine.map((id) => read(id, bound, outcome)))).filter((t): t is PriceTick => t !== null);
      deps.onRound(outcome, slot, mine);
      if (ticks.length > 0) deps.publish(ticks);
    } catch (err) {
      logger.error({ err }, 'live prices: a polling round failed');
    } finally {
      running = false;
      schedule();
    }
  }

  return {
    /** Something is watched: make sure rounds run. */
    wake: schedule,
    /** Whether a round runs or is scheduled. */
    get polling() {
      return running || timer !== null;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
