import { badUserInput } from '../../errors.js';
import { decodeCursor, encodeCursor, fieldsOf, isCount, LazyEdge, lazyPageInfo, type CursorSigning, type PageInfo } from '../common/cursor.js';

export interface PageArgs {
  first?: number | null | undefined;
  last?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

export interface PageOptions {
  defaultSize: number;
  maxSize: number;
}

export interface Page<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  totalCount: number;
}

/** An edge's place in the whole list. */
interface OffsetCursor {
  offset: number;
}

export function offsetCursor(signing: CursorSigning, offset: number): string {
  return encodeCursor<OffsetCursor>(signing, { offset });
}

function cursorOffset(signing: CursorSigning, cursor: string, field: 'after' | 'before'): number {
  return decodeCursor(
    signing,
    cursor,
    (payload) => {
      const offset = fieldsOf(payload)?.['offset'];
      return isCount(offset, Number.MAX_SAFE_INTEGER) ? offset : null;
    },
    { field, message: `${field} must be a cursor returned by this connection.` },
  );
}

function size(value: number | null | undefined, field: 'first' | 'last', max: number): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0 || value > max) throw badUserInput(`${field} must be between 0 and ${max}.`, field);
  return value;
}

/**
 * A page of a list the gateway holds whole (the upstream does not paginate it), with opaque offset
 * cursors. Every argument is checked before anything is read.
 */
export function validatePage(args: PageArgs, options: PageOptions, signing: CursorSigning) {
  const first = size(args.first, 'first', options.maxSize);
  const last = size(args.last, 'last', options.maxSize);
  const after = args.after ? cursorOffset(signing, args.after, 'after') : null;
  const before = args.before ? cursorOffset(signing, args.before, 'before') : null;
  return <T>(items: readonly T[]): Page<T> => {
    const total = items.length;
    let start = after === null ? 0 : Math.min(after + 1, total);
    let end = before === null ? total : Math.max(Math.min(before, total), start);
    if (first !== null) end = Math.min(end, start + first);
    if (last !== null) start = Math.max(start, end - last);
    if (first === null && last === null) end = Math.min(end, start + options.defaultSize);
    const edges = items.slice(start, end).map((node, i) => new LazyEdge<T, OffsetCursor>(node, { offset: start + i }, signing));
    return { edges, pageInfo: lazyPageInfo(edges, end < total, start > 0), totalCount: total };
  };
}
