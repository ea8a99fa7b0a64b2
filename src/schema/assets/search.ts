import { toGraphQLError } from '../../errors.js';
import type { AssetSummary } from '../../models/index.js';
import { builder } from '../builder.js';
import { AssetRef, type AssetView } from '../refs.js';
import { AssetTypeEnum } from './asset.js';
import {
  MAX_QUERY_LENGTH,
  SEARCH_PAGE,
  checkFirst,
  checkSearchQuery,
  checkSearchTypes,
  decodeSearchCursor,
  encodeSearchCursor,
  searchFingerprint,
  type SearchPosition,
} from './inputs.js';

/** A search result as an Asset: the summary now, the other fields loaded only if a caller asks for them. */
function summaryView(summary: AssetSummary): AssetView {
  return {
    ...summary,
    decimals: null,
    tags: [],
    description: null,
    websiteUrl: null,
    price: null,
    marketCapUsd: null,
    metadataSource: 'PRIMARY',
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
      const fingerprint = searchFingerprint(query, types);
      const start: SearchPosition = args.after ? decodeSearchCursor(args.after, fingerprint) : { cursor: null, skip: 0 };

      let page;
      try {
        page = await ctx.services.upstream.assets.searchAssets({
          query,
          // An edge cursor may point inside an upstream page: that page is read again from its start and skipped.
          limit: Math.min(SEARCH_PAGE.max, start.skip + first),
          cursor: start.cursor,
          signal: ctx.request.signal,
          ...(types ? { types } : {}),
        });
      } catch (error) {
        throw toGraphQLError(error);
      }

      const results = page.results.slice(start.skip, start.skip + first);
      const consumed = start.skip + results.length;
      const hasNextPage = consumed < page.results.length || page.cursor !== null;
      const resumeAt = (skip: number): string =>
        // Past the last result of the page, the next upstream page starts fresh.
        skip >= page.results.length && page.cursor !== null
          ? encodeSearchCursor(fingerprint, { cursor: page.cursor, skip: 0 })
          : encodeSearchCursor(fingerprint, { cursor: start.cursor, skip });

      const edges = results.map((summary, i) => ({ cursor: resumeAt(start.skip + i + 1), node: summaryView(summary) }));
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
