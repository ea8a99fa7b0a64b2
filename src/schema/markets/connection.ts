import { badUserInput, toGraphQLError } from '../../errors.js';
import { marketTokens, type Market, type TokenRef } from '../../models/index.js';
import { builder } from '../builder.js';
import { decodeCursor, encodeCursor, fieldsOf, isCount, isUpstreamCursor } from '../common/cursor.js';
import { MarketRef } from '../refs.js';
import { filterFingerprint, MarketFilterInputRef, parseMarketFilter } from './filter.js';

export const MARKETS_PAGE = { default: 20, max: 200 } as const;
/** The upstream's cursors are opaque; anything beyond this is not one of them. */
const MAX_UPSTREAM_CURSOR = 512;

/**
 * A position in the listing: the upstream cursor of a page (null = first page) and how many markets
 * of that page come before the position, bound to the fingerprint of the filter it was issued for.
 */
interface ListingPosition {
  upstreamCursor: string | null;
  skip: number;
  fingerprint: string;
}

interface CursorPayload {
  v: 1;
  c: string | null;
  o: number;
  f: string;
}

export function encodeMarketsCursor(position: ListingPosition): string {
  return encodeCursor<CursorPayload>({ v: 1, c: position.upstreamCursor, o: position.skip, f: position.fingerprint });
}

export function decodeMarketsCursor(after: string, fingerprint: string): ListingPosition {
  const { c, o, f } = decodeCursor(after, cursorPayload, {
    field: 'after',
    message: '`after` is not a cursor of `markets`: pass an `endCursor` or edge `cursor` from an earlier page.',
  });
  if (f !== fingerprint) {
    throw badUserInput('This `after` cursor was issued for a different `filter`: use it with the filter it came from, or start again without `after`.', 'after');
  }
  return { upstreamCursor: c, skip: o, fingerprint };
}

function cursorPayload(payload: unknown): CursorPayload | null {
  const { v, c, o, f } = fieldsOf(payload) ?? {};
  const cursorOk = c === null || isUpstreamCursor(c, MAX_UPSTREAM_CURSOR);
  return v === 1 && cursorOk && isCount(o, MARKETS_PAGE.max) && typeof f === 'string' ? { v, c, o, f } : null;
}

const MarketConnection = builder.connectionObject(
  {
    type: MarketRef,
    name: 'MarketConnection',
    description: 'A page of markets.',
    edgesField: { description: 'The markets of this page, in the upstream order.' },
    fields: (t) => ({
      totalCount: t.int({
        description: 'Always null: the markets service does not count its listing.',
        resolve: () => null,
      }),
    }),
  },
  {
    name: 'MarketEdge',
    description: 'A market and the cursor that resumes right after it.',
    nodeField: { description: 'The market.' },
  },
);

builder.queryFields((t) => ({
  markets: t.field({
    type: MarketConnection,
    description:
      'Markets as the markets service lists them, forward only. `endCursor` continues where the page ended; an edge `cursor` ' +
      'from the middle of a page resumes right after that edge (the gateway re-reads that upstream page and skips the edges before it, ' +
      'so the next page may then hold fewer than `first` markets). A cursor only works with the `filter` it was issued for.',
    args: {
      first: t.arg.int({ description: `How many markets, 1–${MARKETS_PAGE.max}; default ${MARKETS_PAGE.default}.` }),
      after: t.arg.string({ description: 'Resume after this cursor.' }),
      filter: t.arg({ type: MarketFilterInputRef, description: 'Which markets; every field optional.' }),
    },
    resolve: async (_root, args, ctx) => {
      const first = args.first ?? MARKETS_PAGE.default;
      if (!Number.isInteger(first) || first < 1 || first > MARKETS_PAGE.max) {
        throw badUserInput(`first must be between 1 and ${MARKETS_PAGE.max}; got ${first}.`, 'first');
      }
      const filter = parseMarketFilter(args.filter);
      const fingerprint = filterFingerprint(filter);
      const start: ListingPosition = args.after
        ? decodeMarketsCursor(args.after, fingerprint)
        : { upstreamCursor: null, skip: 0, fingerprint };

      let page;
      try {
        page = await ctx.services.upstream.markets.listMarkets({
          ...filter,
          cursor: start.upstreamCursor,
          limit: Math.min(MARKETS_PAGE.max, start.skip + first),
          signal: ctx.request.signal,
        });
      } catch (error) {
        throw toGraphQLError(error);
      }

      const markets = page.markets.slice(start.skip, start.skip + first);
      const tokens: TokenRef[] = [];
      for (const market of markets) {
        ctx.loaders.markets.market.prime(market.marketId, market);
        tokens.push(...marketTokens(market));
      }
      if (tokens.length > 0) ctx.services.assetCache.rememberTokens(tokens);

      const consumed = start.skip + markets.length;
      const restInPage = consumed < page.markets.length;
      const hasNextPage = restInPage || page.cursor !== null;
      const resumeAt = (skip: number): string =>
        // Past the last market of the page, the next upstream page starts fresh.
        skip >= page.markets.length && page.cursor !== null
          ? encodeMarketsCursor({ upstreamCursor: page.cursor, skip: 0, fingerprint })
          : encodeMarketsCursor({ upstreamCursor: start.upstreamCursor, skip, fingerprint });

      const edges = markets.map((node: Market, i) => ({ cursor: resumeAt(start.skip + i + 1), node }));
      return {
        edges,
        pageInfo: {
          hasNextPage,
          hasPreviousPage: args.after != null,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? (hasNextPage ? resumeAt(consumed) : null),
        },
      };
    },
  }),
}));
