import type {
  LaunchpadMetrics,
  PriceChangePoint,
  TokenLastTradePriceChangeEvent,
  TokenPriceChangeEvent,
  TrendingTokenEvent,
} from '../../events/model.js';
import { PRICE_CHANGE_WINDOWS } from '../../events/model.js';
import { builder } from '../builder.js';
import { WalletRef } from '../refs.js';
import { EVENT_TYPE_NAMES, EventRef, PriceDirectionEnum } from './event.js';

const WINDOW_DESCRIPTIONS: Record<(typeof PRICE_CHANGE_WINDOWS)[keyof typeof PRICE_CHANGE_WINDOWS], string> = {
  ONE_HOUR: '1 hour',
  THREE_HOURS: '3 hours',
  SIX_HOURS: '6 hours',
  TWELVE_HOURS: '12 hours',
  ONE_DAY: '24 hours',
  SEVEN_DAYS: '7 days',
};

const PriceChangeWindowEnum = builder.enumType('PriceChangeWindow', {
  description: 'The sliding window a price change is measured over.',
  values: Object.fromEntries(Object.entries(WINDOW_DESCRIPTIONS).map(([name, description]) => [name, { description }])) as Record<
    keyof typeof WINDOW_DESCRIPTIONS,
    { description: string }
  >,
});

const PriceChangePointRef = builder.objectRef<PriceChangePoint>('PriceChangePoint').implement({
  description: 'A price at a moment: one end of a price change.',
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'When.', resolve: (p) => p.timestamp }),
    priceUsd: t.exposeFloat('priceUsd', { nullable: false, description: 'The price in USD.' }),
  }),
});

builder.objectRef<TokenPriceChangeEvent>(EVENT_TYPE_NAMES.TOKEN_PRICE_CHANGE).implement({
  description: "A token's price moved by at least `threshold` within the sliding `window`.",
  interfaces: [EventRef],
  fields: (t) => ({
    window: t.field({ type: PriceChangeWindowEnum, nullable: false, description: 'The window the change is measured over.', resolve: (e) => e.window }),
    threshold: t.exposeFloat('threshold', { nullable: false, description: 'The move that triggers the event, a fraction (0.05 = 5 %).' }),
    direction: t.field({ type: PriceDirectionEnum, nullable: false, description: 'Which way the price moved.', resolve: (e) => e.direction }),
    from: t.field({ type: PriceChangePointRef, nullable: false, description: 'The price at the start of the window.', resolve: (e) => e.from }),
    to: t.field({ type: PriceChangePointRef, nullable: false, description: 'The price at the end of the window.', resolve: (e) => e.to }),
    absolute: t.exposeFloat('absolute', { nullable: false, description: 'The change in USD, as the upstream reports it.' }),
    percentage: t.exposeFloat('percentage', { nullable: false, description: 'The change as a fraction (0.052 = 5.2 %), as the upstream reports it.' }),
  }),
});

const LaunchpadMetricsRef = builder.objectRef<LaunchpadMetrics>('LaunchpadMetrics').implement({
  description: 'Figures of a token that graduated from a launchpad, at the moment it did.',
  fields: (t) => ({
    launchpad: t.exposeString('launchpad', { nullable: false, description: 'The launchpad it graduated from.' }),
    marketCapUsd: t.exposeFloat('marketCapUsd', { nullable: false, description: 'Market capitalisation in USD.' }),
    liquidityUsd: t.exposeFloat('liquidityUsd', { nullable: false, description: 'Liquidity in USD.' }),
    holders: t.exposeInt('holders', { nullable: false, description: 'Number of holders.' }),
    priceUsd: t.exposeFloat('priceUsd', { nullable: false, description: 'The price in USD.' }),
    priceChange24h: t.exposeFloat('priceChange24h', { description: 'Price change over 24 hours, a fraction.' }),
  }),
});

builder.objectRef<TrendingTokenEvent>(EVENT_TYPE_NAMES.TRENDING_TOKEN).implement({
  description: 'A token started trending: it graduated from a launchpad.',
  interfaces: [EventRef],
  fields: (t) => ({
    metrics: t.field({ type: LaunchpadMetricsRef, nullable: false, description: 'Its launchpad figures.', resolve: (e) => e.metrics }),
  }),
});

builder.objectRef<TokenLastTradePriceChangeEvent>(EVENT_TYPE_NAMES.TOKEN_LAST_TRADE_PRICE_CHANGE).implement({
  description: "A token's price moved away from the price of a wallet's last trade in it.",
  interfaces: [EventRef],
  fields: (t) => ({
    walletAddress: t.exposeString('walletAddress', { nullable: false, description: 'The wallet that traded.' }),
    wallet: t.field({ type: WalletRef, nullable: false, description: 'The wallet that traded.', resolve: (e) => ({ address: e.walletAddress }) }),
    lastTradePrice: t.exposeFloat('lastTradePrice', { nullable: false, description: "The price of the wallet's last trade, in USD." }),
    currentPrice: t.exposeFloat('currentPrice', { nullable: false, description: 'The price now, in USD.' }),
    percentage: t.exposeFloat('percentage', { nullable: false, description: 'The change since the last trade, a fraction, as the upstream reports it.' }),
    direction: t.field({ type: PriceDirectionEnum, nullable: false, description: 'Which way the price moved.', resolve: (e) => e.direction }),
  }),
});
