/**
 * The gateway's own model of an upstream event (docs/upstream.md section 4), as subscribers receive it.
 * Plain JSON data: it crosses replicas through Redis unchanged.
 */

export const EVENT_KINDS = ['TOKEN_PRICE_CHANGE', 'TRENDING_TOKEN', 'TOKEN_LAST_TRADE_PRICE_CHANGE'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The sliding windows of a price-change trigger, by the upstream's name. */
export const PRICE_CHANGE_WINDOWS = {
  '1h': 'ONE_HOUR',
  '3h': 'THREE_HOURS',
  '6h': 'SIX_HOURS',
  '12h': 'TWELVE_HOURS',
  '24h': 'ONE_DAY',
  '7d': 'SEVEN_DAYS',
} as const;
export type PriceChangeWindow = (typeof PRICE_CHANGE_WINDOWS)[keyof typeof PRICE_CHANGE_WINDOWS];

export type PriceDirection = 'UP' | 'DOWN';

interface EventBase {
  /** The upstream's unique id: repeats of a retried delivery carry the same one. */
  eventId: string;
  /** ISO 8601. */
  timestamp: string;
  /** `solana:<address>` unless the upstream names the asset itself. */
  assetId: string;
  symbol: string;
}

export interface PriceChangePoint {
  timestamp: string;
  priceUsd: number;
}

export interface TokenPriceChangeEvent extends EventBase {
  kind: 'TOKEN_PRICE_CHANGE';
  window: PriceChangeWindow;
  /** A ratio: 0.05 = the trigger fires on a 5 % move within the window. */
  threshold: number;
  direction: PriceDirection;
  from: PriceChangePoint;
  to: PriceChangePoint;
  /** In USD, as sent. */
  absolute: number;
  /** A ratio, as sent. */
  percentage: number;
}

export interface LaunchpadMetrics {
  launchpad: string;
  marketCapUsd: number;
  liquidityUsd: number;
  holders: number;
  priceUsd: number;
  /** A ratio. */
  priceChange24h: number | null;
}

export interface TrendingTokenEvent extends EventBase {
  kind: 'TRENDING_TOKEN';
  metrics: LaunchpadMetrics;
}

export interface TokenLastTradePriceChangeEvent extends EventBase {
  kind: 'TOKEN_LAST_TRADE_PRICE_CHANGE';
  walletAddress: string;
  lastTradePrice: number;
  currentPrice: number;
  /** A ratio, as sent. */
  percentage: number;
  direction: PriceDirection;
}

export type Event = TokenPriceChangeEvent | TrendingTokenEvent | TokenLastTradePriceChangeEvent;

/** What one subscriber wants; `null` means "any". */
export interface EventFilter {
  kinds: ReadonlySet<EventKind> | null;
  assetIds: ReadonlySet<string> | null;
}

export function matchesFilter(event: Event, filter: EventFilter): boolean {
  return (!filter.kinds || filter.kinds.has(event.kind)) && (!filter.assetIds || filter.assetIds.has(event.assetId));
}
