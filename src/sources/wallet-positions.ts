import type { Market, Position } from '../models/index.js';
import type { CallScope } from '../operation/index.js';
import type { PositionsStore, WalletPositions } from '../stores/positions.js';
import { afterBatchTick } from './common.js';

interface Queued {
  wallet: string;
  resolve(positions: Position[]): void;
  reject(error: unknown): void;
}

/**
 * One request's wallets' positions: each wallet asked once, the wallets asked in one tick read together
 * (up to `maxBatch` a call), as DataLoader batches them and at the same moment (after the promise jobs
 * of the tick, on the next tick). Written here rather than through DataLoader because a screen loads
 * one wallet through two fields: a second field is handed the first's promise itself, with no promise
 * or callback made for its cache hit, and no loader is built per request (the profile of the cold
 * mobile screen, bench/PHASES.md). It also keeps the reads it got, for the freshness of their markets.
 */
export class WalletPositionsLoader {
  readonly #store: PositionsStore;
  readonly #scope: CallScope;
  readonly #maxBatch: number;
  readonly #loaded = new Map<string, Promise<Position[]>>();
  #queue: Queued[] | undefined;
  /** The reads this request got, in order, and the markets they embed by when their read answered (made when first asked). */
  readonly #reads: WalletPositions[] = [];
  #embedded: Map<Market, number> | undefined;
  #embeddedFrom = 0;

  constructor(store: PositionsStore, scope: CallScope, maxBatch: number) {
    this.#store = store;
    this.#scope = scope;
    this.#maxBatch = maxBatch;
  }

  load(wallet: string): Promise<Position[]> {
    let loaded = this.#loaded.get(wallet);
    if (loaded === undefined) {
      loaded = new Promise<Position[]>((resolve, reject) => {
        let queue = this.#queue;
        if (!queue) {
          this.#queue = queue = [];
          // DataLoader's moment, so the fields of one tick share a call.
          afterBatchTick(() => this.#dispatch());
        }
        queue.push({ wallet, resolve, reject });
      });
      this.#loaded.set(wallet, loaded);
    }
    return loaded;
  }

  /** When the read that carried this embedded market answered, for a market of a position this request loaded; null for any other. */
  fetchedAtOf(market: Market): number | null {
    const reads = this.#reads;
    if (this.#embeddedFrom < reads.length) {
      const embedded = (this.#embedded ??= new Map());
      for (; this.#embeddedFrom < reads.length; this.#embeddedFrom++) {
        const { positions, fetchedAt } = reads[this.#embeddedFrom]!;
        for (const position of positions) if (position.market) embedded.set(position.market, fetchedAt);
      }
    }
    return this.#embedded?.get(market) ?? null;
  }

  #dispatch(): void {
    const queue = this.#queue!;
    this.#queue = undefined;
    for (let i = 0; i < queue.length; i += this.#maxBatch) {
      const batch = i === 0 && queue.length <= this.#maxBatch ? queue : queue.slice(i, i + this.#maxBatch);
      this.#store.load(batch.map((q) => q.wallet), this.#scope).then(
        (reads) => {
          for (let j = 0; j < batch.length; j++) {
            const read = reads[j]!;
            this.#reads.push(read);
            batch[j]!.resolve(read.positions);
          }
        },
        (error: unknown) => {
          // A failed read is not kept: the wallet asked again later in the request is read again.
          for (const queued of batch) {
            this.#loaded.delete(queued.wallet);
            queued.reject(error);
          }
        },
      );
    }
  }
}

