import { MARKET_HISTORY_RESOLUTIONS, MAX_HISTORY_POINTS, type Market, type MarketType } from '../../models/index.js';
import { passthrough } from '../../errors.js';
import type { Context } from '../../context.js';
import { builder } from '../builder.js';
import { historyCost } from '../common/cost.js';
import { checkWindow, type WindowRules } from '../common/inputs.js';
import { windowArgs } from '../common/window-args.js';
import { FreshnessRef } from '../common/freshness.js';
import { MarketStatusEnum, MarketTypeEnum } from '../enums.js';
import { MarketRef, ProviderRef } from '../refs.js';

/** GraphQL object type of each market kind. */
export const MARKET_TYPE_NAMES: Record<MarketType, string> = {
  YIELD: 'YieldMarket',
  LENDING: 'LendingMarket',
  LOOP: 'LoopMarket',
  PERPETUAL: 'PerpetualMarket',
  REWARD: 'RewardMarket',
  PREDICTION: 'PredictionMarket',
};

/** Longest id `market(id:)` looks up; anything longer cannot be a market id. */
const MAX_MARKET_ID_LENGTH = 256;

/** What `Market.apyHistory` accepts: the window of the markets service's history. */
const APY_HISTORY_WINDOW: WindowRules<(typeof MARKET_HISTORY_RESOLUTIONS)[number]> = {
  field: 'apyHistory',
  resolutions: MARKET_HISTORY_RESOLUTIONS,
  defaultResolution: 'ONE_DAY',
  // The contract sets no limit, but 50 markets of hourly points since launch are tens of megabytes:
  // bound each market's series as the other histories are bound.
  maxPoints: MAX_HISTORY_POINTS,
};

export function loadMarket(marketId: string, ctx: Context): Promise<Market | null> {
  return ctx.markets.market(marketId);
}

const MarketApyPoint = builder
  .objectRef<{ timestamp: string; depositApy: number | null; borrowApy: number | null; totalDeposit: number | null; totalDepositUsd: number | null }>(
    'MarketApyPoint',
  )
  .implement({
    description: "One bucket of a market's APY history. APYs are fractions (0.0487 = 4.87 %).",
    fields: (t) => ({
      timestamp: t.field({ type: 'DateTime', nullable: false, description: 'Start of the bucket.', resolve: (p) => p.timestamp }),
      depositApy: t.exposeFloat('depositApy', { description: 'Deposit APY, a fraction.' }),
      borrowApy: t.exposeFloat('borrowApy', { description: 'Borrow APY, a fraction (lending markets).' }),
      totalDeposit: t.exposeFloat('totalDeposit', { description: 'Total deposited, in token units.' }),
      totalDepositUsd: t.exposeFloat('totalDepositUsd', { description: 'Total deposited, in USD.' }),
    }),
  });

MarketRef.implement({
  description:
    'A market of the markets service: one of YieldMarket, LendingMarket, LoopMarket, PerpetualMarket, RewardMarket, PredictionMarket.',
  interfaces: [builder.nodeInterfaceRef()],
  resolveType: (market) => MARKET_TYPE_NAMES[market.type],
  fields: (t) => ({
    marketId: t.exposeString('marketId', {
      nullable: false,
      description: "The markets service's own id, e.g. `kamino.lend.<address>` (what `market(id:)` takes).",
    }),
    type: t.expose('type', { type: MarketTypeEnum, nullable: false, description: 'The kind of market.' }),
    productName: t.exposeString('productName', { nullable: false, description: 'Product name, e.g. `Kamino Lend`.' }),
    marketName: t.exposeString('marketName', { description: 'Name of the market within the product, when the upstream gives one.' }),
    status: t.expose('status', {
      type: MarketStatusEnum,
      description:
        "The prediction status for prediction markets; the position's market status for markets reached through a position; otherwise null.",
    }),
    provider: t.expose('provider', { type: ProviderRef, nullable: false, description: 'Who offers the market.' }),
    websiteUrl: t.exposeString('websiteUrl', { description: "The market's page on the provider's site." }),
    additionalData: t.field({
      type: 'JSON',
      description: 'Extra data the upstream sends as is (within 16 deep and 16 KiB: past them, a field error).',
      resolve: (m) => passthrough(m.additionalData, 'markets'),
    }),
    freshness: t.field({
      type: FreshnessRef,
      nullable: false,
      description:
        "How fresh this record is: the gateway's copy of the listing (CACHE, or STALE when its refreshes failed), or ORIGIN when read for this request (a market embedded in a position read for it, or a listing re-read for `Cache-Control`); a market embedded in a wallet's shared positions read before this request is CACHE.",
      resolve: (m, _args, ctx) => ctx.markets.freshness(m),
    }),
    apyHistory: t.field({
      type: [MarketApyPoint],
      complexity: historyCost(APY_HISTORY_WINDOW),
      description: 'APY and deposit history, at most 2,000 points per market. Markets of one request are fetched together, up to 50 per upstream call.',
      args: windowArgs(t.arg, APY_HISTORY_WINDOW, {
        from: 'Start of the window.',
        to: 'End of the window; default now.',
        resolution: 'ONE_HOUR or ONE_DAY (default); other values are refused.',
      }),
      resolve: (market, args, ctx) => {
        const { from, to, resolution } = checkWindow(args, APY_HISTORY_WINDOW);
        return ctx.markets.apyHistory({
          marketId: market.marketId,
          from: from.toISOString(),
          to: to ? to.toISOString() : null,
          resolution,
        });
      },
    }),
  }),
});

builder.queryFields((t) => ({
  market: t.field({
    type: MarketRef,
    description: "A market by the markets service's own id (`marketId`); null when unknown.",
    args: { id: t.arg.string({ required: true, description: 'The `marketId`, e.g. `kamino.lend.<address>`.' }) },
    resolve: (_root, { id }, ctx) => (id.length === 0 || id.length > MAX_MARKET_ID_LENGTH ? null : loadMarket(id, ctx)),
  }),
}));
