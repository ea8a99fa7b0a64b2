import type { Position, PriceTick, WalletValueEvent } from '../../models/index.js';
import type { PositionsStore } from '../positions.js';
import type { LivePrices } from './index.js';
import { netValue, pricedAssets, valuePosition } from './valuation.js';

/** How often a `walletValue` stream re-reads the wallet's positions; price ticks in between cost no positions call. */
export const WALLET_POSITIONS_REFRESH_MS = 60_000;

export interface WalletValueDeps {
  livePrices: Pick<LivePrices, 'subscribe'>;
  positions: Pick<PositionsStore, 'load'>;
  /** Assets one wallet's stream watches at most (`LIVE_PRICES_MAX_ASSETS`); positions past them keep their read value. */
  maxAssets: number;
  refreshMs?: number;
}

/**
 * A wallet's value, recomputed from the positions' amounts and live prices on every tick of an asset it
 * holds; the positions themselves are re-read every `refreshMs` (on the next tick past it). Returned
 * as an iterator whose `return` ends the feed subscription at once, even while it waits for a tick.
 */
export async function openWalletValue(deps: WalletValueDeps, address: string): Promise<AsyncIterableIterator<WalletValueEvent>> {
  const refreshMs = deps.refreshMs ?? WALLET_POSITIONS_REFRESH_MS;
  const prices = new Map<string, PriceTick>();
  let positions: Position[] = [];
  let readAt = 0;
  let assetIds: string[] = [];
  let feed: AsyncIterableIterator<PriceTick[]> | null = null;
  let pendingFirst: PriceTick[] | null = null;
  let ended = false;

  const load = async () => {
    const [read] = await deps.positions.load([address]);
    positions = read?.positions ?? [];
    readAt = Date.now();
    const wanted = [...new Set(positions.flatMap(pricedAssets))].slice(0, deps.maxAssets);
    if (feed && wanted.length === assetIds.length && wanted.every((id) => assetIds.includes(id))) return;
    const next = await deps.livePrices.subscribe(wanted, { skipUnknown: true });
    const first = await next.next();
    await feed?.return?.();
    feed = next;
    assetIds = wanted;
    prices.clear();
    pendingFirst = first.done ? [] : first.value;
  };

  const event = (): WalletValueEvent => {
    const usd = new Map<string, number | null>();
    let asOf = readAt;
    let stale = false;
    for (const [id, tick] of prices) {
      usd.set(id, tick.usd);
      if (tick.asOf !== null && tick.asOf > asOf) asOf = tick.asOf;
      stale ||= tick.stale;
    }
    const values = positions.map((p) => valuePosition(p, usd));
    return { address, totalValueUsd: netValue(values), positions: values, asOf: new Date(asOf), stale };
  };

  const apply = (ticks: readonly PriceTick[]) => {
    for (const tick of ticks) prices.set(tick.assetId, tick);
  };

  await load();
  const iterator: AsyncIterableIterator<WalletValueEvent> = {
    async next() {
      if (ended) return { value: undefined, done: true };
      if (pendingFirst) {
        apply(pendingFirst);
        pendingFirst = null;
        return { value: event(), done: false };
      }
      const ticks = await feed!.next();
      if (ticks.done || ended) return iterator.return!();
      apply(ticks.value);
      if (Date.now() - readAt >= refreshMs) {
        await load();
        if (pendingFirst) {
          apply(pendingFirst);
          pendingFirst = null;
        }
      }
      return { value: event(), done: false };
    },
    async return() {
      ended = true;
      await feed?.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
