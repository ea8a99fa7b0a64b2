import { Gauge, type Registry } from 'prom-client';
import type { Market } from '../../models/index.js';
import type { Logger } from '../../logger.js';
import { InFlight } from '../../inflight.js';
import { deadlineExceeded, type OperationDeadline } from '../../operation/index.js';
import { UpstreamError } from '../../upstream/errors.js';
import type { ListingReader } from './reader.js';
import { buildSnapshot, type Snapshot } from './snapshot.js';

export interface RefresherOptions {
  read: ListingReader;
  logger: Logger;
  /** Where the index's gauges (`gateway_market_index_markets`, `gateway_market_index_age_seconds`) are registered. */
  registry: Registry;
  refreshIntervalMs: number;
  staleAfterMs: number;
  now: () => number;
}

/**
 * Holds the market index and keeps it fresh: one read of the listing at a time (callers during a read
 * share it), on a timer and on demand. A read that fails keeps the index held; a refused one (`EBADBODY`:
 * unreadable, or most of the index gone) also flags it stale until a read is accepted.
 */
export class IndexRefresher {
  /** The index held; null before the first successful build. Replaced, never changed, by a read. */
  snapshot: Snapshot | null = null;
  /** The last read was refused: the index held is stale until a read is accepted. */
  refused = false;
  /** Successful builds since creation. */
  builds = 0;
  /** The one read in flight (its only key is the listing). */
  readonly #inflight = new InFlight<'listing', void>();
  #abort: AbortController | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  /** The snapshot each held market belongs to: a market's freshness is its snapshot's. */
  readonly #owners = new WeakMap<Market, Snapshot>();
  readonly #o: RefresherOptions;

  constructor(options: RefresherOptions) {
    this.#o = options;
    const { registry, now } = options;
    const markets: Gauge = new Gauge({
      name: 'gateway_market_index_markets',
      help: 'Markets held by the shared market index.',
      registers: [registry],
      collect: () => markets.set(this.snapshot?.markets.size ?? 0),
    });
    const age: Gauge = new Gauge({
      name: 'gateway_market_index_age_seconds',
      help: 'Age of the shared market index (-1 before the first build).',
      registers: [registry],
      collect: () => age.set(this.snapshot ? (now() - this.snapshot.builtAt) / 1000 : -1),
    });
  }

  get refreshing(): boolean {
    return this.#inflight.size > 0;
  }

  /** Older than `staleAfterMs`, refused, or never built: the last refreshes failed. */
  isStale(): boolean {
    const { snapshot } = this;
    return snapshot === null || this.refused || this.#o.now() - snapshot.builtAt > this.#o.staleAfterMs;
  }

  /** The snapshot a market served by this index belongs to; undefined for any other market. */
  ownerOf(market: Market): Snapshot | undefined {
    return this.#owners.get(market);
  }

  /** One read of the whole listing at a time; callers during a read share it. */
  refresh(): Promise<void> {
    return this.#read().result;
  }

  /** The index held, built first if need be; the wait for that build ends at `deadline` (the build goes on). */
  async current(deadline: OperationDeadline | undefined): Promise<Snapshot> {
    if (!this.snapshot) await this.#read().join({ deadlineAt: deadline?.at, expired: () => deadlineExceeded('markets') }).answer;
    return this.snapshot!;
  }

  /** The read in flight, started when there is none. */
  #read() {
    return this.#inflight.get('listing') ?? this.#inflight.start('listing', () => this.#readListing(), { meta: undefined });
  }

  #readListing(): Promise<void> {
    const controller = new AbortController();
    this.#abort = controller;
    const held = this.snapshot;
    return this.#o
      .read(held && { size: held.list.length, bytes: held.bytes }, controller.signal)
      .then(
        ({ list, bytes }) => {
          const next = buildSnapshot(list, this.#o.now(), bytes);
          for (const market of next.list) this.#owners.set(market, next);
          this.snapshot = next;
          this.refused = false;
          this.builds++;
        },
        (err: unknown) => {
          // A refused read (or one that did not end) leaves the index held, flagged stale at once.
          if (err instanceof UpstreamError && err.code === 'EBADBODY' && this.snapshot) this.refused = true;
          throw err;
        },
      )
      .finally(() => {
        if (this.#abort === controller) this.#abort = null;
      });
  }

  /** Builds the index once and starts the refresh timer; a failing upstream is logged, not thrown. */
  async start(): Promise<void> {
    const { logger } = this.#o;
    this.#stopped = false;
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#backgroundRefresh(), this.#o.refreshIntervalMs);
      this.#timer.unref();
    }
    try {
      await this.refresh();
      logger.info({ markets: this.snapshot?.markets.size }, 'market index built');
    } catch (err) {
      if (this.#stopped) return;
      logger.error({ err }, 'market index build failed at start; lookups and the refresh timer retry');
    }
  }

  /** Stops the refresh timer and aborts a refresh in flight. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#abort?.abort();
  }

  #backgroundRefresh(): void {
    if (this.refreshing) return;
    const { logger, now } = this.#o;
    this.refresh().catch((err: unknown) => {
      if (this.#stopped) return;
      const { snapshot } = this;
      logger.warn(
        { err, ageSeconds: snapshot ? Math.round((now() - snapshot.builtAt) / 1000) : null, stale: this.isStale() },
        snapshot ? 'market index refresh failed; serving the previous index' : 'market index build failed; retrying later',
      );
    });
  }
}
