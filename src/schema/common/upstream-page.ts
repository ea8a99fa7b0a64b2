import type { PageInfo } from './cursor.js';

/**
 * Forward-only connections over an upstream that pages with opaque cursors. The gateway's cursor
 * names an upstream page and how many of its items come before the position, so that an edge cursor
 * from the middle of a page resumes right after that edge: the page is read again from its start,
 * with room for the items before the position, and those are dropped.
 *
 * Each connection keeps its own cursor format (and the filter fingerprint it binds); this module only
 * decides what to ask the upstream for and how to cut its answer into edges.
 */

/** A place in an upstream listing: the upstream cursor of a page (null = the first page) and how many of its items lie before it. */
export interface UpstreamPosition {
  cursor: string | null;
  skip: number;
}

/** How a connection turns its `after` into a position (checking it was issued for these arguments) and a position into a cursor. */
export interface UpstreamCursors {
  decode(after: string): UpstreamPosition;
  encode(position: UpstreamPosition): string;
}

export interface ForwardPage<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
}

export interface UpstreamRead {
  /** The upstream page to read: the one the position lies in, from its start. */
  cursor: string | null;
  /** How many items to ask for: those before the position, then `first`, within the upstream's `maxLimit`. */
  limit: number;
  /** The connection's page out of what the upstream returned for `cursor` and `limit` (`next`: its cursor for the following page). */
  page<T>(items: readonly T[], next: string | null): ForwardPage<T>;
}

/** Where `first` items after `after` lie upstream, and the page they make once read. `after` is decoded (and refused) here, before any call. */
export function resumeInUpstreamPage(
  args: { first: number; after: string | null | undefined },
  maxLimit: number,
  cursors: UpstreamCursors,
): UpstreamRead {
  const { first, after } = args;
  const start: UpstreamPosition = after ? cursors.decode(after) : { cursor: null, skip: 0 };
  return {
    cursor: start.cursor,
    limit: Math.min(maxLimit, start.skip + first),
    page: (items, next) => {
      const taken = items.slice(start.skip, start.skip + first);
      const consumed = start.skip + taken.length;
      const hasNextPage = consumed < items.length || next !== null;
      const resumeAt = (skip: number): string =>
        // Past the last item of the page, the next upstream page starts fresh.
        skip >= items.length && next !== null
          ? cursors.encode({ cursor: next, skip: 0 })
          : cursors.encode({ cursor: start.cursor, skip });

      const edges = taken.map((node, i) => ({ cursor: resumeAt(start.skip + i + 1), node }));
      return {
        edges,
        pageInfo: {
          hasNextPage,
          hasPreviousPage: start.cursor !== null || start.skip > 0,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? (hasNextPage ? resumeAt(consumed) : null),
        },
      };
    },
  };
}
