import { badUserInput } from '../../errors.js';
import type { Market } from '../../models/index.js';
import { builder } from '../builder.js';
import { decodeCursor, fieldsOf, LazyEdge, lazyPageInfo, type CursorSigning, type PageInfo } from '../common/cursor.js';
import { pageCost } from '../common/cost.js';
import { MarketRef } from '../refs.js';
import { filterFingerprint, MarketFilterInputRef, parseMarketFilter } from './filter.js';

export const MARKETS_PAGE = { default: 20, max: 200 } as const;
/** Longest market id a cursor carries (as `market(id:)` looks up). */
const MAX_CURSOR_MARKET_ID = 256;

/**
 * A markets cursor: the market it resumes after (its `marketId`, a place in the listing that survives a
 * refresh of the index, unlike an offset) and the fingerprint of the filter it was issued for.
 */
interface MarketCursor {
  k: 'markets';
  f: string;
  m: string;
}

const validCursor = (payload: unknown): MarketCursor | null => {
  const { k, f, m } = fieldsOf(payload) ?? {};
  return k === 'markets' && typeof f === 'string' && typeof m === 'string' && m.length > 0 && m.length <= MAX_CURSOR_MARKET_ID
    ? { k, f, m }
    : null;
};

/** The marketId an `after` cursor resumes after, checked to be a markets cursor of this filter. */
function decodeAfter(signing: CursorSigning, after: string, fingerprint: string): string {
  const { f, m } = decodeCursor(signing, after, validCursor, {
    field: 'after',
    message: '`after` is not a cursor of `markets`: pass an `endCursor` or edge `cursor` from an earlier page.',
  });
  if (f !== fingerprint) {
    throw badUserInput(
      'This `after` cursor was issued for a different `filter`: use it with the filter it came from, or start again without `after`.',
      'after',
    );
  }
  return m;
}

interface PresentedPage {
  fingerprint: string;
  edges: LazyEdge<Market, MarketCursor>[];
  pageInfo: PageInfo;
}

/**
 * A page's edges and page info, made once per page the index keeps (its slice is the same object for
 * every request of that page) and shared: their cursors are signed once per page and snapshot, read
 * by every request after for no signature or lookup per edge.
 */
function presented(signing: CursorSigning, page: { markets: readonly Market[]; hasNextPage: boolean; hasPreviousPage: boolean }, fingerprint: string): PresentedPage {
  const present = (): PresentedPage => {
    const edges = page.markets.map((node) => new LazyEdge<Market, MarketCursor>(node, { k: 'markets', f: fingerprint, m: node.marketId }, signing));
    return { fingerprint, edges, pageInfo: lazyPageInfo(edges, page.hasNextPage, page.hasPreviousPage) };
  };
  const kept = signing.issued(page.markets, present);
  // Cursors carry the fingerprint of the filter they were issued for: edges kept under another are never handed out.
  return kept.fingerprint === fingerprint ? kept : present();
}

const MarketConnection = builder.connectionObject(
  {
    type: MarketRef,
    name: 'MarketConnection',
    description: 'A page of markets.',
    edgesField: { description: 'The markets of this page, in the upstream order.' },
    fields: (t) => ({
      totalCount: t.int({
        nullable: false,
        description:
          "How many markets the `filter` matches, over all pages: counted in the gateway's copy of the listing the page came from, with no upstream call.",
        // `connectionObject` types its parent as the bare connection shape; `markets` below returns the count with it.
        resolve: (connection) => (connection as typeof connection & { totalCount: number }).totalCount,
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
    complexity: pageCost(MARKETS_PAGE),
    description:
      'Markets as the markets service lists them, forward only, served from the gateway\'s copy of the listing (refreshed in the ' +
      'background). An edge `cursor` resumes right after its market, `endCursor` after the page; a cursor stays valid across ' +
      'refreshes of the copy and only works with the `filter` it was issued for. When the market a cursor resumes after is no ' +
      'longer listed, the cursor is refused (BAD_USER_INPUT): start again without `after`.',
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
      const after = args.after ? decodeAfter(ctx.services.cursors, args.after, fingerprint) : null;

      const page = await ctx.markets.listing(filter, { after, first });
      if (page === null) {
        throw badUserInput(
          'The market this `after` cursor resumes after is no longer listed by the markets service: start again without `after`.',
          'after',
        );
      }
      const { edges, pageInfo } = presented(ctx.services.cursors, page, fingerprint);
      return { edges, totalCount: page.totalCount, pageInfo };
    },
  }),
}));
