import { MARKET_STATUSES, marketTokens, type Market, type TokenRef } from '../../models/index.js';
import type { Logger } from '../../logger.js';
import { badBody } from '../../upstream/errors.js';
import type { MarketsClient } from '../../upstream/index.js';
import { ListingParts } from '../shared-parts.js';

/** The listing's largest page: the fewest calls for a full read. */
export const INDEX_PAGE_SIZE = 200;
/**
 * A read is bounded in pages and bytes, so that a listing that never ends (fresh cursors page after
 * page) ends the read soon, and the index held is served meanwhile. With an index held: twice its
 * pages and bytes and some; before the first build: these.
 */
const MAX_PAGES_COLD = 250;
const MAX_BYTES_COLD = 64 * 1024 * 1024;
const MIN_PAGES = 10;
const MIN_BYTES = 32 * 1024 * 1024;
/** A read that lost more than this share of the index held is taken for a broken answer, unless reads say so this many times in a row. */
const MAX_LOSS = 0.5;
const SHRINKS_BELIEVED = 3;

/** What a read is measured against: the index held, by its markets and the bytes its read took. */
export interface HeldListing {
  size: number;
  bytes: number;
}

/** One whole read of the listing, in the upstream's order. */
export interface ListingRead {
  list: Market[];
  bytes: number;
}

export interface ListingReaderDeps {
  markets: Pick<MarketsClient, 'listMarkets'>;
  logger: Logger;
  /** Called with the token records of every listing page read (feeds the asset fallback). */
  onTokens?: (tokens: readonly TokenRef[]) => void;
}

/**
 * Reads the whole listing (prediction markets of every status), page by page. A read that does not end,
 * or that the index held does not trust (most records unreadable, or most of the index gone), fails
 * as a broken answer of the markets service (`EBADBODY`).
 */
export type ListingReader = (held: HeldListing | null, signal: AbortSignal) => Promise<ListingRead>;

export function createListingReader({ markets: client, logger, onTokens }: ListingReaderDeps): ListingReader {
  let shrinks = 0;

  /**
   * A read is trusted only when most of what it sent could be read, and it did not lose most of the
   * index held (unless reads keep saying so: a listing that did shrink). Else it is refused: the index
   * held stays, flagged stale.
   */
  function checkListing(held: HeldListing | null, readable: number, unreadable: number): void {
    if (!held) return;
    const mostUnreadable = unreadable > 0 && unreadable >= readable;
    const shrunk = readable < held.size * (1 - MAX_LOSS);
    shrinks = shrunk && !mostUnreadable ? shrinks + 1 : 0;
    if (!mostUnreadable && (!shrunk || shrinks >= SHRINKS_BELIEVED)) return;
    logger.warn(
      { held: held.size, readable, unreadable },
      'market index: the listing read lost most of its valid records; keeping the previous index, flagged stale',
    );
    throw badBody('markets', `the listing lost most of its valid records (${readable} readable, ${unreadable} unreadable, ${held.size} held)`);
  }

  return async (held, signal) => {
    const maxPages = held ? Math.max(MIN_PAGES, 2 * Math.ceil(held.size / INDEX_PAGE_SIZE) + 5) : MAX_PAGES_COLD;
    const maxBytes = held ? Math.max(MIN_BYTES, 2 * held.bytes) : MAX_BYTES_COLD;
    const markets = new Map<string, Market>();
    const seenCursors = new Set<string>();
    let cursor: string | null = null;
    let bytes = 0;
    let unreadable = 0;
    // The index holds its markets for a refresh period: one object per equal provider and token.
    const parts = new ListingParts();
    for (let page = 0; page < maxPages && bytes <= maxBytes; page++) {
      const result = await client.listMarkets({
        predictionStatus: MARKET_STATUSES,
        limit: INDEX_PAGE_SIZE,
        cursor,
        scope: { signal },
      });
      bytes += result.bytes ?? 0;
      unreadable += result.unreadable ?? 0;
      const tokens: TokenRef[] = [];
      for (const market of result.markets) {
        // A market listed twice (the listing moved under the read) keeps its first place.
        if (!markets.has(market.marketId)) markets.set(market.marketId, market);
        parts.share(market);
        tokens.push(...marketTokens(market));
      }
      cursor = result.cursor;
      if (cursor === null) {
        const list = [...markets.values()];
        checkListing(held, list.length, unreadable);
        if (tokens.length > 0) onTokens?.(tokens);
        return { list, bytes };
      }
      if (tokens.length > 0) onTokens?.(tokens);
      if (seenCursors.has(cursor)) break;
      seenCursors.add(cursor);
    }
    // A broken answer of the markets service, reported as any other (UPSTREAM_UNAVAILABLE to callers).
    throw badBody('markets', `the listing did not end (cursor loop, or over ${maxPages} pages or ${maxBytes} bytes)`);
  };
}
