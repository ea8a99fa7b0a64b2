import { badUserInput } from '../../errors.js';
import { decodeCursor, encodeCursor, fieldsOf, isCount, isUpstreamCursor, type CursorSigning, type PageInfo } from './cursor.js';

/**
 * Forward-only connections over an upstream that pages with opaque cursors. The gateway's cursor
 * names an upstream page and how many of its items come before the position, so that an edge cursor
 * from the middle of a page resumes right after that edge: the page is read again from its start,
 * with room for the items before the position, and those are dropped.
 *
 * `boundCursors` is the cursor format such a connection uses: the position, the connection's name and
 * the fingerprint of the arguments it pages. `resumeInUpstreamPage` decides what to ask the upstream
 * for and how to cut its answer into edges, whatever the format.
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

/** The upstream's cursor rides inside ours: of sane length, or it is not one the gateway issued. */
const MAX_UPSTREAM_CURSOR_LENGTH = 512;

interface BoundCursor {
  /** The connection that issued it. */
  k: string;
  /** The fingerprint of the arguments it pages. */
  f: string;
  c: string | null;
  o: number;
}

export interface BoundCursorOptions {
  /** The connection's name: a cursor of another connection is not one of its own. */
  kind: string;
  /** A digest of the arguments paged (`cursorFingerprint`): a cursor works with those only. */
  fingerprint: string;
  /** The most items a read takes (the connection's `maxLimit`): no cursor skips more. */
  maxSkip: number;
  /** The longest upstream cursor that can ride inside (default 512). */
  maxUpstreamCursor?: number;
  /** BAD_USER_INPUT messages on `after`: a cursor this connection did not issue; one issued for other arguments. */
  notOurs: string;
  otherArguments: string;
  /** Signs and checks the cursors (`ctx.services.cursors`). */
  signing: CursorSigning;
}

/** Cursors of a connection over an upstream listing, bound to the connection and to the arguments they were issued for. */
export function boundCursors(options: BoundCursorOptions): UpstreamCursors {
  const { kind, fingerprint, maxSkip, maxUpstreamCursor = MAX_UPSTREAM_CURSOR_LENGTH, signing } = options;
  const valid = (payload: unknown): BoundCursor | null => {
    const { k, f, c, o } = fieldsOf(payload) ?? {};
    const cursorOk = c === null || isUpstreamCursor(c, maxUpstreamCursor);
    return k === kind && typeof f === 'string' && cursorOk && isCount(o, maxSkip) ? { k, f, c, o } : null;
  };
  return {
    encode: (position) => encodeCursor<BoundCursor>(signing, { k: kind, f: fingerprint, c: position.cursor, o: position.skip }),
    decode: (after) => {
      const { f, c, o } = decodeCursor(signing, after, valid, { field: 'after', message: options.notOurs });
      if (f !== fingerprint) throw badUserInput(options.otherArguments, 'after');
      return { cursor: c, skip: o };
    },
  };
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
