import { badUserInput } from '../../errors.js';
import { startEvent } from '../../sources/index.js';
import { isValidAssetId, type PriceTick } from '../../models/index.js';
import { checkAssetId } from '../assets/inputs.js';
import { loadAsset } from '../assets/resolve.js';
import { builder } from '../builder.js';
import { FreshnessSourceEnum } from '../common/freshness.js';
import { AssetRef } from '../refs.js';

export const PriceTickRef = builder.objectRef<PriceTick>('PriceTick').implement({
  description: "An asset's price as the live feed read it from the assets service.",
  fields: (t) => ({
    assetId: t.exposeString('assetId', { nullable: false, description: "The assets service's id of the asset." }),
    asset: t.field({
      type: AssetRef,
      nullable: false,
      description: 'The asset (its metadata from the shared asset cache).',
      resolve: async (tick, _args, ctx) => {
        const asset = await loadAsset(tick.assetId, ctx);
        if (!asset) throw badUserInput(`The assets service no longer knows ${tick.assetId}.`, 'assetIds');
        return asset;
      },
    }),
    usd: t.exposeFloat('usd', { description: 'Price in USD; null when the asset has none.' }),
    change24h: t.exposeFloat('change24h', { description: 'Change over 24 hours as a ratio (-0.031 = -3.1 %); null when unknown.' }),
    asOf: t.field({
      type: 'DateTime',
      description: 'When this price was read from the assets service; null when unknown.',
      resolve: (tick) => (tick.asOf === null ? null : new Date(tick.asOf)),
    }),
    source: t.field({ type: FreshnessSourceEnum, nullable: false, description: 'Where this price came from.', resolve: (tick) => tick.source }),
    stale: t.exposeBoolean('stale', {
      nullable: false,
      description: 'The last read of this asset failed: this is the last known price. The next good read sends the asset again, not stale.',
    }),
  }),
});

/** The asset ids of a `prices` subscription: distinct, valid, at most `max`; refused before the stream starts. */
export function checkLiveAssetIds(ids: readonly string[], max: number): string[] {
  if (ids.length === 0) throw badUserInput('assetIds must name at least one asset.', 'assetIds');
  const unique = [...new Set(ids.map(String))];
  if (unique.length > max) throw badUserInput(`assetIds holds ${unique.length} distinct ids; at most ${max} per subscription.`, 'assetIds');
  for (const id of unique) if (!isValidAssetId(id)) checkAssetId(id, 'assetIds');
  return unique;
}

builder.subscriptionField('prices', (t) =>
  t.field({
    type: [PriceTickRef],
    nullable: false,
    description:
      'Live prices of some assets: the first event holds every asset asked, each later one the assets whose price changed (or went stale) since. ' +
      'Each asset is read once per LIVE_PRICES_INTERVAL_MS for the whole deployment, however many watch it. Unknown or malformed ids refuse the subscription (BAD_USER_INPUT).',
    args: {
      assetIds: t.arg.idList({ required: true, description: 'Asset ids, `<chain>:<address or symbol>`; at most LIVE_PRICES_MAX_ASSETS (default 100).' }),
    },
    subscribe: async (_root, args, ctx) => {
      const feed = ctx.services.livePrices;
      const ids = checkLiveAssetIds(args.assetIds.map(String), ctx.services.config.livePrices.maxAssets);
      // A stream starts only once this replica hears what the replica polling its assets publishes.
      await feed.whenListening();
      return feed.subscribe(ids);
    },
    resolve: (ticks, _args, ctx) => {
      startEvent(ctx);
      return ticks;
    },
  }),
);
