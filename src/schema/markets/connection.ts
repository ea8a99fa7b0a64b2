import { badUserInput } from '../../errors.js';
import { marketTokens, type TokenRef } from '../../models/index.js';
import { builder } from '../builder.js';
import { pageCost } from '../common/cost.js';
import { upstreamValue } from '../common/errors.js';
import { boundCursors, resumeInUpstreamPage } from '../common/upstream-page.js';
import { MarketRef } from '../refs.js';
import { filterFingerprint, MarketFilterInputRef, parseMarketFilter } from './filter.js';

export const MARKETS_PAGE = { default: 20, max: 200 } as const;

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
    complexity: pageCost(MARKETS_PAGE),
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
      const read = resumeInUpstreamPage(
        { first, after: args.after },
        MARKETS_PAGE.max,
        boundCursors({
          kind: 'markets',
          fingerprint: filterFingerprint(filter),
          maxSkip: MARKETS_PAGE.max,
          notOurs: '`after` is not a cursor of `markets`: pass an `endCursor` or edge `cursor` from an earlier page.',
          otherArguments:
            'This `after` cursor was issued for a different `filter`: use it with the filter it came from, or start again without `after`.',
        }),
      );

      const page = await upstreamValue(
        ctx.services.upstream.markets.listMarkets({
          ...filter,
          cursor: read.cursor,
          limit: read.limit,
          signal: ctx.request.signal,
        }),
      );

      const { edges, pageInfo } = read.page(page.markets, page.cursor);
      const tokens: TokenRef[] = [];
      for (const { node: market } of edges) {
        ctx.loaders.markets.market.prime(market.marketId, market);
        tokens.push(...marketTokens(market));
      }
      if (tokens.length > 0) ctx.services.assetCache.rememberTokens(tokens);
      return { edges, pageInfo };
    },
  }),
}));
