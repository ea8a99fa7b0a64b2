/**
 * The events the simulated upstream sends (docs/upstream.md section 4), computed from the world's own
 * price series. Pure functions of (world, time): the same tick always gives the same events and ids,
 * so a retried or recomputed delivery is recognisable as a repeat.
 */
import { hashString } from '../prng.js';
import { DAY, HOUR } from '../world/series.js';
import type { AssetRecord, World } from '../world/index.js';

export const WINDOW_MS = {
  '1h': HOUR,
  '3h': 3 * HOUR,
  '6h': 6 * HOUR,
  '12h': 12 * HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
} as const;
export type WindowName = keyof typeof WINDOW_MS;

/** Ratios: a 1 h move of 2 % fires. Across the default world this gives a few events a minute. */
export const DEFAULT_THRESHOLDS: Readonly<Record<WindowName, number>> = {
  '1h': 0.02,
  '3h': 0.03,
  '6h': 0.04,
  '12h': 0.05,
  '24h': 0.06,
  '7d': 0.1,
};

const LAUNCHPADS = ['pump.fun', 'letsbonk.fun', 'moonshot', 'believe'];

type Direction = 'up' | 'down';
interface Token {
  symbol: string;
  address: string;
}

/** The contract's event shapes (the simulator keeps its own copy, independent of the gateway's parser). */
export type WebhookEvent = { id: string; timestamp: string } & (
  | {
      event: 'token_price_change';
      token: Token & { assetId?: string };
      trigger: { type: 'sliding_window_percentage_change'; window: { duration: WindowName }; threshold: number };
      change: { direction: Direction; from: { timestamp: string; value: number }; to: { timestamp: string; value: number }; absolute: number; percentage: number };
    }
  | {
      event: 'trending_token';
      token: Token;
      trigger: { type: 'launchpad_graduated' };
      metrics: { marketCap: number; liquidity: number; holders: number; price: number; launchpad: string; priceChange24h?: number };
    }
  | { event: 'token_last_trade_price_change'; walletAddress: string; token: Token; lastTradePrice: number; currentPrice: number; percentage: number; direction: Direction }
);

export interface EventOptions {
  /** Windows to watch and the move that fires each (ratios); windows left out are not watched. */
  thresholds?: Partial<Record<WindowName, number>>;
  /** A trending token every this many ms (aligned to the clock); `null`: none. */
  trendingEveryMs?: number | null;
  /** Move away from a demo wallet's last prediction trade that fires (ratio); `null`: none. */
  lastTradeThreshold?: number | null;
}

const DEFAULTS = { trendingEveryMs: 60_000, lastTradeThreshold: 0.1 };

/** Solana tokens whose price moves: the subjects of price events (prediction outcome tokens left out). */
export function eventTokens(world: World): AssetRecord[] {
  return world.assets.filter(
    (a) => a.chain === 'solana' && a.type === 'token' && a.address !== null && a.model.fixed === undefined && !a.tags.includes('prediction'),
  );
}

/**
 * Every event of the tick at `at` (epoch ms), the previous tick being `at - step`. An event fires when a
 * condition starts to hold (or flips direction) between the two ticks, not on every tick while it holds.
 */
export function eventsAt(world: World, at: number, step: number, options: EventOptions = {}): WebhookEvent[] {
  const tokens = eventTokens(world);
  const trendingEveryMs = options.trendingEveryMs === undefined ? DEFAULTS.trendingEveryMs : options.trendingEveryMs;
  const lastTradeThreshold = options.lastTradeThreshold === undefined ? DEFAULTS.lastTradeThreshold : options.lastTradeThreshold;
  const events: WebhookEvent[] = priceChangeEvents(world, tokens, at, step, options.thresholds ?? DEFAULT_THRESHOLDS);
  if (lastTradeThreshold !== null) events.push(...lastTradeEvents(world, at, step, lastTradeThreshold));
  if (trendingEveryMs !== null && Math.floor(at / trendingEveryMs) !== Math.floor((at - step) / trendingEveryMs)) {
    const trending = trendingTokenEvent(world, tokens, Math.floor(at / trendingEveryMs), at);
    if (trending) events.push(trending);
  }
  return events;
}

/** The move of an asset's price over `windowMs` ending at `t`. */
export function windowChange(world: World, assetId: string, t: number, windowMs: number) {
  const from = world.priceAt(assetId, t - windowMs);
  const to = world.priceAt(assetId, t);
  if (from === undefined || to === undefined || from <= 0) return null;
  return { from, to, absolute: to - from, percentage: to / from - 1 };
}

function firing(percentage: number, threshold: number): Direction | null {
  if (percentage >= threshold) return 'up';
  if (percentage <= -threshold) return 'down';
  return null;
}

export function priceChangeEvents(
  world: World,
  tokens: readonly AssetRecord[],
  at: number,
  step: number,
  thresholds: Partial<Record<WindowName, number>>,
): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  for (const [window, threshold] of Object.entries(thresholds) as [WindowName, number | undefined][]) {
    if (threshold === undefined) continue;
    const windowMs = WINDOW_MS[window];
    for (const token of tokens) {
      const now = windowChange(world, token.id, at, windowMs);
      const before = windowChange(world, token.id, at - step, windowMs);
      if (!now || !before) continue;
      const direction = firing(now.percentage, threshold);
      if (!direction || direction === firing(before.percentage, threshold)) continue;
      events.push({
        id: `token_price_change:${window}:${token.address}:${at}`,
        timestamp: iso(at),
        event: 'token_price_change',
        token: { symbol: token.symbol, address: token.address!, assetId: token.id },
        trigger: { type: 'sliding_window_percentage_change', window: { duration: window }, threshold },
        change: {
          direction,
          from: { timestamp: iso(at - windowMs), value: now.from },
          to: { timestamp: iso(at), value: now.to },
          absolute: now.absolute,
          percentage: now.percentage,
        },
      });
    }
  }
  return events;
}

/** The demo wallets' prediction positions whose price moved past `threshold` from their last trade's price. */
export function lastTradeEvents(world: World, at: number, step: number, threshold: number): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  for (const wallet of world.demoWallets) {
    for (const record of world.positionsByOwner.get(wallet) ?? []) {
      const valuation = record.valuation;
      if (valuation.kind !== 'prediction') continue;
      const asset = world.assetsById.get(valuation.assetId);
      const trade = valuation.trades.filter((t) => t.kind !== 'transfer_out' && Date.parse(t.timestamp) <= at - step).at(-1);
      if (!asset?.address || !trade || trade.price <= 0) continue;
      const move = (t: number) => {
        const price = world.priceAt(asset.id, t);
        return price === undefined ? null : { price, percentage: price / trade.price - 1 };
      };
      const now = move(at);
      const before = move(at - step);
      if (!now || !before) continue;
      const direction = firing(now.percentage, threshold);
      if (!direction || direction === firing(before.percentage, threshold)) continue;
      events.push({
        id: `token_last_trade_price_change:${wallet}:${asset.address}:${at}`,
        timestamp: iso(at),
        event: 'token_last_trade_price_change',
        walletAddress: wallet,
        token: { symbol: asset.symbol, address: asset.address },
        lastTradePrice: trade.price,
        currentPrice: now.price,
        percentage: now.percentage,
        direction,
      });
    }
  }
  return events;
}

/** A token picked by the bucket's hash, with launchpad figures derived from its price and supply. */
export function trendingTokenEvent(world: World, tokens: readonly AssetRecord[], bucket: number, at: number): WebhookEvent | null {
  if (tokens.length === 0) return null;
  const h = hashString(`trending:${bucket}`, world.seed);
  const token = tokens[h % tokens.length]!;
  const price = world.priceAt(token.id, at);
  const dayAgo = world.priceAt(token.id, at - DAY);
  if (price === undefined) return null;
  const marketCap = price * (token.model.supply ?? 1e9);
  const frac = (h >>> 8) / 2 ** 24;
  return {
    id: `trending_token:${bucket}`,
    timestamp: iso(at),
    event: 'trending_token',
    token: { symbol: token.symbol, address: token.address! },
    trigger: { type: 'launchpad_graduated' },
    metrics: {
      marketCap,
      liquidity: marketCap * (0.03 + 0.12 * frac),
      holders: 800 + Math.floor(frac * 40_000),
      price,
      launchpad: LAUNCHPADS[h % LAUNCHPADS.length]!,
      ...(dayAgo ? { priceChange24h: price / dayAgo - 1 } : {}),
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
