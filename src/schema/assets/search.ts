import { freshnessAt, type AssetSummary, type AssetView } from '../../models/index.js';
import { builder } from '../builder.js';
import { pageCost } from '../common/cost.js';
import { resumeInUpstreamPage } from '../common/upstream-page.js';
import { AssetRef } from '../refs.js';
import { AssetTypeEnum } from './asset.js';
import {
  MAX_QUERY_LENGTH,
  SEARCH_PAGE,
  checkFirst,
  checkSearchQuery,
  checkSearchTypes,
  searchCursors,
} from './inputs.js';

/** A search result as an Asset: the summary now, the other fields loaded only if a caller asks for them. */
function summaryView(summary: AssetSummary, fetchedAt: number): AssetView {
  return {
    ...summary,
    decimals: null,
    tags: [],
    description: null,
    websiteUrl: null,
    price: null,
    marketCapUsd: null,
    freshness: freshnessAt('ORIGIN', fetchedAt),
    summaryOnly: true,
  };
}

const AssetSearchConnection = builder.connectionObject(
  {
    type: AssetRef,
    name: 'AssetSearchConnection',
    description: 'A page of search results (the assets service does not count them).',
    edgesField: { description: 'The results of this page, best match first.' },
  },
  {
    name: 'AssetSearchEdge',
    description: 'A search result and the cursor that resumes right after it.',
    nodeField: { description: 'The asset.' },
  },
);

builder.queryFields((t) => ({
  searchAssets: t.field({
    type: AssetSearchConnection,
    complexity: pageCost(SEARCH_PAGE),
    description:
      'Assets whose name, symbol or tag matches `query` (case-insensitive), best matches first; an empty query lists every asset. ' +
      'Forward only: `endCursor` continues where the page ended, an edge `cursor` right after that edge (the next page may then ' +
      'hold fewer than `first` results). A cursor only works with the `query` and `types` it was issued for.',
    args: {
      query: t.arg.string({ required: true, description: `Text to match, at most ${MAX_QUERY_LENGTH} characters.` }),
      first: t.arg.int({ description: `How many results, 1–${SEARCH_PAGE.max}; default ${SEARCH_PAGE.default}.` }),
      after: t.arg.string({ description: 'Resume after this cursor.' }),
      types: t.arg({ type: [AssetTypeEnum], description: 'Only assets of these types (TOKEN, STOCK, RWA); omitted or empty = all.' }),
    },
    resolve: async (_root, args, ctx) => {
      const query = checkSearchQuery(args.query);
      const types = checkSearchTypes(args.types);
      const first = checkFirst(args.first, SEARCH_PAGE);
      const read = resumeInUpstreamPage({ first, after: args.after }, SEARCH_PAGE.max, searchCursors(query, types, ctx.services.cursors));

      const page = await ctx.assets.search({ query, limit: read.limit, cursor: read.cursor, ...(types ? { types } : {}) });

      const fetchedAt = Date.now();
      const { edges, pageInfo } = read.page(page.results, page.cursor);
      return { edges: edges.map(({ cursor, node }) => ({ cursor, node: summaryView(node, fetchedAt) })), pageInfo };
    },
  }),
}));
