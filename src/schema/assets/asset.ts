import { isValidAssetId, PRICE_HISTORY_RESOLUTIONS, type AssetPriceView, type FreshnessSource, type PricePoint } from '../../models/index.js';
import { builder } from '../builder.js';
import { lengthCost, pagedHistoryCost } from '../common/cost.js';
import { checkWindow } from '../common/inputs.js';
import { FreshnessRef } from '../common/freshness.js';
import { ResolutionEnum } from '../enums.js';
import { AssetRef } from '../refs.js';
import { HELD_RECORDS } from '../sync-global-ids.js';
import { assetPrice, completed, loadAsset } from './resolve.js';
import { MAX_ASSET_IDS, PRICE_HISTORY_PAGE, PRICE_HISTORY_WINDOW, checkAssetId, checkAssetIds } from './inputs.js';
import { pagePlan } from './price-page.js';

export const AssetTypeEnum = builder.enumType('AssetType', {
  description: 'What an asset is. A type the gateway does not know yet is UNKNOWN.',
  values: {
    TOKEN: { description: 'A fungible on-chain token.' },
    STOCK: { description: 'A listed equity.' },
    RWA: { description: 'A tokenized real-world asset (treasuries, funds ...).' },
    UNKNOWN: { description: 'A type the gateway does not know, or a token known only from a market record.' },
  } as const,
});

export const MetadataSourceEnum = builder.enumType('MetadataSource', {
  description:
    "Where an asset's metadata came from on this request. The price is kept fresh on its own (30 s time-to-live, served stale the same ways): see price.freshness. The same as `freshness.source` in the terms Market and AssetPrice share (PRIMARY is ORIGIN).",
  values: {
    PRIMARY: { description: 'Fetched from the assets service for this request.' },
    CACHE: { description: "The gateway's cached copy, within the metadata time-to-live (6 h)." },
    STALE: {
      description:
        "The gateway's last good copy, older than the metadata time-to-live: served while a refresh runs in the background, or because the assets service failed (up to 24 h old).",
    },
    FALLBACK: {
      description:
        'Not from the assets service: from the second assets service, or, metadata only, from the token record of a market listing or position (price is then null with an UPSTREAM_UNAVAILABLE error).',
    },
  } as const,
});

/** The deprecated `metadataSource` spelling of each freshness source. */
const METADATA_SOURCES = { ORIGIN: 'PRIMARY', CACHE: 'CACHE', STALE: 'STALE', FALLBACK: 'FALLBACK' } as const satisfies Record<FreshnessSource, string>;

const AssetPriceRef = builder.objectRef<AssetPriceView>('AssetPrice').implement({
  description: 'The latest price of an asset.',
  fields: (t) => ({
    freshness: t.expose('freshness', {
      type: FreshnessRef,
      nullable: false,
      description: "How fresh this price is: its own time-to-live (30 s) and the request's `Cache-Control` bound decide (updatedAt is the assets service's own time).",
    }),
    usd: t.exposeFloat('usd', { nullable: false, description: 'Price in USD.' }),
    change24h: t.exposeFloat('change24h', { description: 'Change over 24 hours as a ratio (-0.031 = -3.1 %); null when unknown.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the price was taken.' }),
  }),
});

const PricePointRef = builder.objectRef<PricePoint>('PricePoint').implement({
  description: "An asset's price at one instant.",
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'The instant (UTC).', resolve: (p) => p.timestamp }),
    priceUsd: t.exposeFloat('priceUsd', { nullable: false, description: 'Price in USD.' }),
  }),
});

builder.node(AssetRef, {
  description: 'A token, stock or real-world asset: metadata, latest price and price history.',
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (asset) => asset.assetId },
  // The asset cache holds each asset's view process-wide.
  extensions: { [HELD_RECORDS]: true },
  loadOne: (id, ctx) => (isValidAssetId(id) ? loadAsset(id, ctx) : null),
  fields: (t) => ({
    assetId: t.exposeString('assetId', {
      nullable: false,
      description: "The assets service's id, `<chain>:<address or symbol>` (`solana:So111…`, `stock:AAPL`).",
    }),
    chain: t.exposeString('chain', { nullable: false, description: 'Chain or venue (`solana`, `ethereum`, `stock` ...).' }),
    address: t.exposeString('address', { description: 'Contract or mint address; null for assets without one (stocks, native coins).' }),
    type: t.expose('type', { type: AssetTypeEnum, nullable: false, description: 'What the asset is.' }),
    name: t.exposeString('name', { nullable: false, description: 'Display name.' }),
    symbol: t.exposeString('symbol', { nullable: false, description: 'Ticker.' }),
    imageUrl: t.exposeString('imageUrl', { description: 'Logo URL.' }),
    decimals: t.int({
      description: 'Decimals of the on-chain token; null when not applicable.',
      resolve: (a, _args, ctx) => completed(a, ctx, (c) => c?.decimals ?? null),
    }),
    tags: t.stringList({
      nullable: { list: true, items: false },
      description: 'Tags such as `stablecoin`, `lst`, `meme`.',
      resolve: (a, _args, ctx) => completed(a, ctx, (c) => c?.tags ?? null),
    }),
    description: t.string({
      description: 'A short description.',
      resolve: (a, _args, ctx) => completed(a, ctx, (c) => c?.description ?? null),
    }),
    websiteUrl: t.string({
      description: "The project's website.",
      resolve: (a, _args, ctx) => completed(a, ctx, (c) => c?.websiteUrl ?? null),
    }),
    marketCapUsd: t.float({
      description: 'Market capitalisation in USD.',
      resolve: (a, _args, ctx) => completed(a, ctx, (c) => c?.marketCapUsd ?? null),
    }),
    price: t.field({
      type: AssetPriceRef,
      description:
        'The latest price, refreshed on its own time-to-live (30 s; the metadata keeps 6 h); null when the asset has none, or (with an UPSTREAM_UNAVAILABLE error) when no assets service could be reached and no copy with a price exists.',
      resolve: (a, _args, ctx) => assetPrice(a, ctx),
    }),
    freshness: t.expose('freshness', {
      type: FreshnessRef,
      nullable: false,
      description: "How fresh this asset's metadata is, in the terms Market and AssetPrice share (the price has its own).",
    }),
    metadataSource: t.field({
      type: MetadataSourceEnum,
      nullable: false,
      description: "Where this asset's metadata came from on this request (the price has its own freshness: see price.freshness).",
      deprecationReason: 'Use `freshness.source`: the same answer in the terms Market and AssetPrice share (PRIMARY is ORIGIN there).',
      resolve: (a) => METADATA_SOURCES[a.freshness.source],
    }),
    priceHistory: t.connection(
      {
        type: PricePointRef,
        complexity: pagedHistoryCost(PRICE_HISTORY_WINDOW),
        description:
          `Prices over a range, oldest first, one point per \`resolution\` step. The range may hold any number of points; ` +
          `a page holds at most ${PRICE_HISTORY_PAGE.max}: \`first\` (or \`last\`) takes 1 to ${PRICE_HISTORY_PAGE.max}, and without ` +
          `either the page is the whole range, refused (BAD_USER_INPUT) when that holds more than ${PRICE_HISTORY_PAGE.max} points. ` +
          'Pass `pageInfo.endCursor` as `after` for the next page.',
        args: {
          from: t.arg({ type: 'DateTime', required: true, description: 'Start of the range.' }),
          to: t.arg({ type: 'DateTime', description: 'End of the range; default now.' }),
          resolution: t.arg({
            type: ResolutionEnum,
            description: `Bucket size: ${PRICE_HISTORY_RESOLUTIONS.join(', ')}; default ONE_HOUR. ONE_MINUTE is not offered for prices.`,
          }),
        },
        resolve: async (asset, args, ctx) => {
          const range = checkWindow(args, PRICE_HISTORY_WINDOW);
          const page = pagePlan(args, range, ctx.services.cursors);
          const load = (window: { from: Date; to: Date | null }) =>
            ctx.assets.priceHistory({
              assetId: asset.assetId,
              from: window.from.toISOString(),
              to: window.to?.toISOString() ?? null,
              resolution: range.resolution,
            });
          // A range one upstream call answers is fetched whole (one call however many pages or aliases
          // of it the request asks for); a longer one, just the page's own steps.
          if (page.whole) {
            const history = await load(range);
            return history ? page.slice(history.points) : null;
          }
          if (page.window === null) return page.slice([]);
          const history = await load(page.window);
          return history ? page.slice(history.points) : null;
        },
      },
      {
        name: 'PricePointConnection',
        description: 'A page of price points.',
        edgesField: { description: 'The points of this page, oldest first.' },
        fields: (c) => ({
          totalCount: c.int({
            nullable: false,
            description: 'How many points the whole range holds (one per `resolution` step from `from` to `to`, or now), over all pages.',
            resolve: (connection) => connection.totalCount,
          }),
        }),
      },
      { name: 'PricePointEdge', description: 'A price point and its cursor (its timestamp).', nodeField: { description: 'The price point.' } },
    ),
  }),
});

builder.queryFields((t) => ({
  asset: t.field({
    type: AssetRef,
    description: 'An asset by its assets-service id (`solana:<mint>`, `ethereum:<0x…>`, `stock:AAPL` ...); null when unknown.',
    args: { id: t.arg.string({ required: true, description: 'The asset id, `<chain>:<address or symbol>`.' }) },
    resolve: (_root, args, ctx) => loadAsset(checkAssetId(args.id), ctx),
  }),
  assets: t.field({
    type: [AssetRef],
    complexity: lengthCost('ids'),
    nullable: { list: false, items: true },
    description: `Assets by id, one entry per id in the order given (null where unknown); each distinct id is looked up once. At most ${MAX_ASSET_IDS} ids.`,
    args: { ids: t.arg.stringList({ required: true, description: `Asset ids, \`<chain>:<address or symbol>\`; at most ${MAX_ASSET_IDS}.` }) },
    resolve: (_root, args, ctx) => checkAssetIds(args.ids).map((id) => loadAsset(id, ctx)),
  }),
}));
