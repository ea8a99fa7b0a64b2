import { badUserInput } from '../../errors.js';
import { startEvent } from '../../sources/index.js';
import { type Event, type EventFilter, type EventKind } from '../../events/model.js';
import { isValidAssetId } from '../../models/index.js';
import { loadAsset } from '../assets/resolve.js';
import { builder } from '../builder.js';
import { AssetRef } from '../refs.js';

/** Longest `assetIds` filter a subscription takes. */
export const MAX_EVENT_ASSET_IDS = 100;

/** GraphQL object type of each event kind. */
export const EVENT_TYPE_NAMES: Record<EventKind, string> = {
  TOKEN_PRICE_CHANGE: 'TokenPriceChangeEvent',
  TRENDING_TOKEN: 'TrendingTokenEvent',
  TOKEN_LAST_TRADE_PRICE_CHANGE: 'TokenLastTradePriceChangeEvent',
};

export const EventKindEnum = builder.enumType('EventKind', {
  description: 'The kind of a live event.',
  values: {
    TOKEN_PRICE_CHANGE: { description: "A token's price moved past a threshold within a sliding window." },
    TRENDING_TOKEN: { description: 'A token started trending (it graduated from a launchpad).' },
    TOKEN_LAST_TRADE_PRICE_CHANGE: { description: "A token's price moved away from the price of a wallet's last trade in it." },
  } satisfies Record<EventKind, unknown>,
});

export const PriceDirectionEnum = builder.enumType('PriceDirection', {
  description: 'Which way a price moved.',
  values: { UP: { description: 'The price rose.' }, DOWN: { description: 'The price fell.' } },
});


export const EventRef = builder.interfaceRef<Event>('Event').implement({
  description:
    'An event the upstream delivered by webhook: one of TokenPriceChangeEvent, TrendingTokenEvent, TokenLastTradePriceChangeEvent.',
  resolveType: (event) => EVENT_TYPE_NAMES[event.kind],
  fields: (t) => ({
    eventId: t.exposeString('eventId', {
      nullable: false,
      description: "The upstream's unique id of the event (each is delivered once, even when the upstream retries).",
    }),
    kind: t.field({ type: EventKindEnum, nullable: false, description: 'The kind of event.', resolve: (event) => event.kind }),
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'When the event happened.', resolve: (event) => event.timestamp }),
    assetId: t.exposeString('assetId', { nullable: false, description: 'Id of the asset the event is about, e.g. `solana:<address>`.' }),
    symbol: t.exposeString('symbol', { nullable: false, description: "The token's symbol as the event names it." }),
    asset: t.field({
      type: AssetRef,
      description: 'The asset the event is about, with its current price; null when the assets service does not know it.',
      resolve: (event, _args, ctx) => loadAsset(event.assetId, ctx),
    }),
  }),
});

builder.subscriptionType({ description: 'Live updates over server-sent events (`Accept: text/event-stream` on /graphql, or /graphql/stream).' });

builder.subscriptionField('events', (t) =>
  t.field({
    type: EventRef,
    nullable: false,
    description: 'Events as the upstream delivers them, from now on, optionally only some kinds or assets.',
    args: {
      kinds: t.arg({ type: [EventKindEnum], description: 'Only these kinds; omitted or empty: every kind.' }),
      assetIds: t.arg.stringList({
        description: `Only events about these assets (\`solana:<address>\`, at most ${MAX_EVENT_ASSET_IDS}); omitted or empty: every asset.`,
      }),
    },
    subscribe: async (_root, args, ctx) => {
      const filter = eventFilter(args);
      // A stream starts only once this replica hears what every replica publishes.
      await ctx.services.events.whenListening();
      return ctx.services.events.subscribe(filter);
    },
    resolve: (event, _args, ctx) => {
      // The stream's context serves every event: its data sources start afresh for each (sources/index.ts).
      startEvent(ctx);
      return event;
    },
  }),
);

/** The subscriber's filter, validated. */
export function eventFilter(args: { kinds?: readonly EventKind[] | null; assetIds?: readonly string[] | null }): EventFilter {
  // `kinds` is an enum list: GraphQL has already refused anything else.
  const kinds = args.kinds?.length ? new Set(args.kinds) : null;
  const assetIds = args.assetIds ?? [];
  if (assetIds.length > MAX_EVENT_ASSET_IDS) throw badUserInput(`assetIds takes at most ${MAX_EVENT_ASSET_IDS} ids.`, 'assetIds');
  const invalid = assetIds.find((id) => !isValidAssetId(id));
  if (invalid !== undefined) {
    throw badUserInput(
      `assetIds: ${JSON.stringify(String(invalid).slice(0, 80))} is not an asset id; expected <chain>:<address>, e.g. solana:So11111111111111111111111111111111111111112.`,
      'assetIds',
    );
  }
  return { kinds, assetIds: assetIds.length ? new Set(assetIds) : null };
}
