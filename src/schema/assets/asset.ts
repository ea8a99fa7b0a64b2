import { upstreamUnavailable } from '../../errors.js';
import type { AssetPriceView, AssetView, PricePoint, TokenRef } from '../../models/index.js';
import { isValidAssetId, MAX_HISTORY_POINTS, PRICE_HISTORY_RESOLUTIONS } from '../../upstream/index.js';
import { builder } from '../builder.js';
import { lengthCost, pagedHistoryCost } from '../common/cost.js';
import { checkWindow } from '../common/inputs.js';
import { FreshnessRef } from '../common/freshness.js';
import type { Context } from '../../context.js';
import { ResolutionEnum } from '../enums.js';
import { AssetRef } from '../refs.js';
import {
  MAX_ASSET_IDS,
  PRICE_HISTORY_WINDOW,
  checkAssetId,
  checkAssetIds,
  checkFirst,
  decodePointCursor,
  encodePointCursor,
} from './inputs.js';

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

const AssetPriceRef = builder.objectRef<AssetPriceView>('AssetPrice').implement({
  description: 'The latest price of an asset.',
  fields: (t) => ({
    freshness: t.field({
      type: FreshnessRef,
      nullable: false,
      description: "How fresh this price is: its own time-to-live (30 s) and the request's `Cache-Control` bound decide (updatedAt is the assets service's own time).",
      resolve: (p) => p.freshness,
    }),
    usd: t.exposeFloat('usd', { nullable: false, description: 'Price in USD.' }),
    change24h: t.exposeFloat('change24h', { description: 'Change over 24 hours as a ratio (-0.031 = -3.1 %); null when unknown.' }),
    updatedAt: t.field({ type: 'DateTime', nullable: false, description: 'When the price was taken.', resolve: (p) => p.updatedAt }),
  }),
});

const PricePointRef = builder.objectRef<PricePoint>('PricePoint').implement({
  description: "An asset's price at one instant.",
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'The instant (UTC).', resolve: (p) => p.timestamp }),
    priceUsd: t.exposeFloat('priceUsd', { nullable: false, description: 'Price in USD.' }),
  }),
});

/** The complete asset behind a view: search results carry only the summary, the rest is loaded when asked for. */
async function complete(asset: AssetView, ctx: Context): Promise<AssetView | null> {
  return asset.summaryOnly ? loadAsset(asset.assetId, ctx) : asset;
}

/** A token of a market or position as an `Asset`, through the asset loader (which falls back to the token record). */
export function resolveToken(ref: TokenRef | null, ctx: Context): Promise<AssetView | null> | null {
  return ref ? ctx.loaders.assets.token(ref) : null;
}

/** An asset by id through the request's asset loader; null when the assets service does not know it. */
export function loadAsset(id: string, ctx: Context): Promise<AssetView | null> {
  return ctx.loaders.assets.asset.load(id);
}

builder.node(AssetRef, {
  description: 'A token, stock or real-world asset: metadata, latest price and price history.',
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (asset) => asset.assetId },
  loadOne: (id, ctx) => (isValidAssetId(id) ? loadAsset(id, ctx) : null),
  fields: (t) => ({
    assetId: t.exposeString('assetId', {
      nullable: false,
      description: "The assets service's id, `<chain>:<address or symbol>` (`solana:So111…`, `stock:AAPL`).",
    }),
    chain: t.exposeString('chain', { nullable: false, description: 'Chain or venue (`solana`, `ethereum`, `stock` ...).' }),
    address: t.exposeString('address', { description: 'Contract or mint address; null for assets without one (stocks, native coins).' }),
    type: t.field({ type: AssetTypeEnum, nullable: false, description: 'What the asset is.', resolve: (a) => a.type }),
    name: t.exposeString('name', { nullable: false, description: 'Display name.' }),
    symbol: t.exposeString('symbol', { nullable: false, description: 'Ticker.' }),
    imageUrl: t.exposeString('imageUrl', { description: 'Logo URL.' }),
    decimals: t.int({
      description: 'Decimals of the on-chain token; null when not applicable.',
      resolve: async (a, _args, ctx) => (await complete(a, ctx))?.decimals ?? null,
    }),
    tags: t.stringList({
      nullable: { list: true, items: false },
      description: 'Tags such as `stablecoin`, `lst`, `meme`.',
      resolve: async (a, _args, ctx) => (await complete(a, ctx))?.tags ?? null,
    }),
    description: t.string({
      description: 'A short description.',
      resolve: async (a, _args, ctx) => (await complete(a, ctx))?.description ?? null,
    }),
    websiteUrl: t.string({
      description: "The project's website.",
      resolve: async (a, _args, ctx) => (await complete(a, ctx))?.websiteUrl ?? null,
    }),
    marketCapUsd: t.float({
      description: 'Market capitalisation in USD.',
      resolve: async (a, _args, ctx) => (await complete(a, ctx))?.marketCapUsd ?? null,
    }),
    price: t.field({
      type: AssetPriceRef,
      description:
        'The latest price, refreshed on its own time-to-live (30 s; the metadata keeps 6 h); null when the asset has none, or (with an UPSTREAM_UNAVAILABLE error) when no assets service could be reached and no copy with a price exists.',
      resolve: async (a, _args, ctx) => {
        const asset = await complete(a, ctx);
        if (!asset) return null;
        const priced = await ctx.loaders.assets.price(asset);
        if (priced?.priceUnavailable) throw upstreamUnavailable('assets');
        return priced?.price ? { ...priced.price, freshness: priced.freshness } : null;
      },
    }),
    freshness: t.field({
      type: FreshnessRef,
      nullable: false,
      description: "How fresh this asset's metadata is (metadataSource in the freshness terms Market and AssetPrice share; the price has its own).",
      resolve: (a) => a.freshness,
    }),
    metadataSource: t.field({
      type: MetadataSourceEnum,
      nullable: false,
      description: "Where this asset's metadata came from on this request (the price has its own freshness: see price.freshness).",
      resolve: (a) => a.metadataSource,
    }),
    priceHistory: t.connection(
      {
        type: PricePointRef,
        complexity: pagedHistoryCost(PRICE_HISTORY_WINDOW),
        description: `Prices over a range, oldest first. One range holds at most ${MAX_HISTORY_POINTS} points; \`first\` and \`last\` take 1 to ${MAX_HISTORY_POINTS} (default: the whole range).`,
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
          const page = pageOf(args);
          const history = await ctx.loaders.assets.priceHistory.load({
            assetId: asset.assetId,
            from: range.from.toISOString(),
            to: range.to?.toISOString() ?? null,
            resolution: range.resolution,
          });
          return history ? page(history.points) : null;
        },
      },
      {
        name: 'PricePointConnection',
        description: 'A page of price points.',
        edgesField: { description: 'The points of this page, oldest first.' },
        fields: (c) => ({
          totalCount: c.int({
            nullable: false,
            description: 'How many points the whole range holds.',
            resolve: (connection) => connection.totalCount,
          }),
        }),
      },
      { name: 'PricePointEdge', description: 'A price point and its cursor (its timestamp).', nodeField: { description: 'The price point.' } },
    ),
  }),
});

interface PageArgs {
  first?: number | null | undefined;
  last?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

/** Pages a whole series by timestamp cursors; every argument is checked before the series is fetched. */
function pageOf(args: PageArgs) {
  const limits = { default: MAX_HISTORY_POINTS, max: MAX_HISTORY_POINTS };
  const first = args.first == null ? null : checkFirst(args.first, limits, 'first');
  const last = args.last == null ? null : checkFirst(args.last, limits, 'last');
  const after = args.after ? decodePointCursor(args.after, 'after') : null;
  const before = args.before ? decodePointCursor(args.before, 'before') : null;

  return (points: readonly PricePoint[]) => {
    const times = points.map((p) => Date.parse(p.timestamp));
    let start = after === null ? 0 : indexAfter(times, after);
    let end = before === null ? points.length : Math.max(start, indexAfter(times, before - 1));
    if (first !== null) end = Math.min(end, start + first);
    if (last !== null) start = Math.max(start, end - last);
    const edges = points.slice(start, end).map((node) => ({ cursor: encodePointCursor(node.timestamp), node }));
    return {
      edges,
      totalCount: points.length,
      pageInfo: {
        hasPreviousPage: start > 0,
        hasNextPage: end < points.length,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
  };
}

/** Index of the first time after `t` (times ascending). */
function indexAfter(times: readonly number[], t: number): number {
  const i = times.findIndex((time) => time > t);
  return i < 0 ? times.length : i;
}

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
