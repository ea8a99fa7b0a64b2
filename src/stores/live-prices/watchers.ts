import { gatewayError } from '../../errors.js';
import { SubscriberQueue } from '../../events/queue.js';
import type { PriceTick } from '../../models/index.js';
import { changed } from './tick.js';

/**
 * Events a price subscriber may fall behind by (each event is one interval's changes); one more and it
 * is dropped, as `events` drops one: its stream ends with `RATE_LIMITED` (`SUBSCRIBER_TOO_SLOW`).
 */
export const LIVE_SUBSCRIBER_QUEUE = 16;

/** One subscription's view of the feed. */
export interface Watcher {
  readonly assetIds: readonly string[];
  readonly queue: SubscriberQueue<PriceTick[]>;
  /** The changes of the batch being fanned out, sent as one event once the batch is done. */
  pending: PriceTick[] | null;
}

/** An asset somebody on this replica watches. */
interface Watched {
  /** Subscriptions holding it, those still reading their first prices included: the asset is polled while > 0. */
  holds: number;
  watchers: Set<Watcher>;
  /** The last tick this replica heard (or read for a first event); changes are judged against it. */
  latest: PriceTick | null;
}

export interface FanoutCounters {
  delivered(count: number): void;
  dropped(): void;
}

/** The assets this replica's subscribers watch, with a refcount each, and the fan-out of ticks to them. */
export class Watchers {
  readonly #assets = new Map<string, Watched>();
  #subscribers = 0;

  constructor(
    private readonly maxAssets: number,
    private readonly counters: FanoutCounters,
  ) {}

  get assetCount(): number {
    return this.#assets.size;
  }

  get subscriberCount(): number {
    return this.#subscribers;
  }

  /** The assets to poll. */
  ids(): string[] {
    return [...this.#assets.keys()];
  }

  latest(assetId: string): PriceTick | null {
    return this.#assets.get(assetId)?.latest ?? null;
  }

  /** Holds `assetIds` for a new subscription, or refuses it when they would take the process past its bound. */
  hold(assetIds: readonly string[]): void {
    const added = assetIds.filter((id) => !this.#assets.has(id)).length;
    if (this.#assets.size + added > this.maxAssets) {
      throw gatewayError(
        `This server watches the most live assets it allows (${this.maxAssets}); subscribe to assets already watched, or retry in 5 s.`,
        'RATE_LIMITED',
        { reason: 'TOO_MANY_LIVE_ASSETS', retryAfterSeconds: 5 },
      );
    }
    for (const id of assetIds) {
      const watched = this.#assets.get(id);
      if (watched) watched.holds++;
      else this.#assets.set(id, { holds: 1, watchers: new Set(), latest: null });
    }
  }

  /** Lets go of what `hold` took; an asset nobody holds any more is no longer polled (from the next round on). */
  release(assetIds: readonly string[]): void {
    for (const id of assetIds) {
      const watched = this.#assets.get(id);
      if (watched && --watched.holds <= 0) this.#assets.delete(id);
    }
  }

  /** Remembers a first read as the latest tick, unless one was heard meanwhile; returns the latest. */
  remember(tick: PriceTick): PriceTick {
    const watched = this.#assets.get(tick.assetId);
    if (!watched) return tick;
    return (watched.latest ??= tick);
  }

  /** Starts delivering to a subscription whose assets are held; its queue's end releases them. */
  attach(assetIds: readonly string[], first: PriceTick[]): SubscriberQueue<PriceTick[]> {
    const watcher: Watcher = {
      assetIds,
      pending: null,
      queue: new SubscriberQueue<PriceTick[]>(LIVE_SUBSCRIBER_QUEUE, () => {
        for (const id of assetIds) this.#assets.get(id)?.watchers.delete(watcher);
        this.#subscribers--;
        this.release(assetIds);
      }),
    };
    this.#subscribers++;
    for (const id of assetIds) this.#assets.get(id)!.watchers.add(watcher);
    watcher.queue.offer(first);
    return watcher.queue;
  }

  /** Hands each subscriber the ticks of `batch` that changed an asset it watches, as one event. */
  deliver(batch: readonly PriceTick[]): void {
    const touched: Watcher[] = [];
    for (const tick of batch) {
      const watched = this.#assets.get(tick.assetId);
      if (!watched || !changed(watched.latest, tick)) continue;
      watched.latest = tick;
      for (const watcher of watched.watchers) {
        if (watcher.pending) {
          watcher.pending.push(tick);
        } else {
          watcher.pending = [tick];
          touched.push(watcher);
        }
      }
    }
    let delivered = 0;
    for (const watcher of touched) {
      const event = watcher.pending!;
      watcher.pending = null;
      if (watcher.queue.offer(event)) delivered += event.length;
      else this.#drop(watcher);
    }
    if (delivered > 0) this.counters.delivered(delivered);
  }

  /** Ends every subscription. */
  close(): void {
    const all = new Set<Watcher>();
    for (const watched of this.#assets.values()) for (const watcher of watched.watchers) all.add(watcher);
    for (const watcher of all) watcher.queue.end();
  }

  #drop(watcher: Watcher): void {
    this.counters.dropped();
    watcher.queue.fail(
      gatewayError(`This subscription fell more than ${LIVE_SUBSCRIBER_QUEUE} price events behind and was closed; subscribe again.`, 'RATE_LIMITED', {
        reason: 'SUBSCRIBER_TOO_SLOW',
      }),
    );
  }
}
