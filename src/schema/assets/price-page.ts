import { badUserInput } from '../../errors.js';
import { pointCount, resolutionMs, type PricePoint } from '../../models/index.js';
import type { CursorSigning } from '../common/cursor.js';
import type { HistoryWindow } from '../common/inputs.js';
import { PRICE_HISTORY_PAGE, type PriceResolution, checkFirst, decodePointCursor, encodePointCursor } from './inputs.js';

interface PageArgs {
  first?: number | null | undefined;
  last?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

/**
 * A page of a price series, planned on the series' grid (its points sit on multiples of the resolution's
 * step, from `from` to `to` or now) before any call: steps `start` to `end` (exclusive) of `total`.
 * Every argument is checked first; a page of more than `PRICE_HISTORY_PAGE.max` points is refused.
 */
export function pagePlan(args: PageArgs, range: HistoryWindow<PriceResolution>, signing: CursorSigning, now = Date.now()) {
  const first = args.first == null ? null : checkFirst(args.first, PRICE_HISTORY_PAGE, 'first');
  const last = args.last == null ? null : checkFirst(args.last, PRICE_HISTORY_PAGE, 'last');
  const after = args.after ? decodePointCursor(signing, args.after, 'after') : null;
  const before = args.before ? decodePointCursor(signing, args.before, 'before') : null;

  const step = resolutionMs(range.resolution);
  const fromMs = range.from.getTime();
  const toMs = Math.min(range.to?.getTime() ?? now, now);
  const base = Math.ceil(fromMs / step);
  const total = Math.max(0, pointCount(fromMs, toMs, range.resolution, now));
  const clamp = (i: number, low: number) => Math.min(Math.max(i, low), total);
  let start = after === null ? 0 : clamp(Math.floor(after / step) - base + 1, 0);
  let end = before === null ? total : clamp(Math.ceil(before / step) - base, start);
  if (first !== null) end = Math.min(end, start + first);
  if (last !== null) start = Math.max(start, end - last);
  if (first === null && last === null && end - start > PRICE_HISTORY_PAGE.max) {
    throw badUserInput(
      `The range holds ${end - start} points at ${range.resolution}; a page holds at most ${PRICE_HISTORY_PAGE.max}. ` +
        `Pass first (1 to ${PRICE_HISTORY_PAGE.max}) and page on with after: pageInfo.endCursor.`,
      'first',
    );
  }
  const whole = total <= PRICE_HISTORY_PAGE.max;
  const time = (i: number) => (base + i) * step;
  return {
    whole,
    /**
     * The widest window holding exactly the page's steps (its ends between grid points, so that `from`
     * stays before `to`); null for an empty page, which needs no call. The last page ends at the range's end.
     */
    window: end > start ? { from: start === 0 ? range.from : new Date(time(start - 1) + 1), to: end === total ? range.to : new Date(time(end) - 1) } : null,
    /** The connection: the page's points of `points` (the whole range's, or the window's), paged by timestamp cursors. */
    slice(points: readonly PricePoint[]) {
      const times = points.map((p) => Date.parse(p.timestamp));
      // On the whole range the page is found among the points themselves (a point the upstream lacks shifts nothing);
      // on a window the upstream answered the page alone, and the grid says what lies around it.
      let i = 0;
      let j = points.length;
      if (whole) {
        i = after === null ? 0 : indexAfter(times, after);
        j = before === null ? points.length : Math.max(i, indexAfter(times, before - 1));
        if (first !== null) j = Math.min(j, i + first);
        if (last !== null) i = Math.max(i, j - last);
      } else {
        while (i < j && times[i]! < time(start)) i++;
        while (j > i && times[j - 1]! > time(end - 1)) j--;
      }
      const edges = points.slice(i, j).map((node) => ({ cursor: encodePointCursor(signing, node.timestamp), node }));
      return {
        edges,
        totalCount: whole ? points.length : total,
        pageInfo: {
          hasPreviousPage: whole ? i > 0 : start > 0,
          hasNextPage: whole ? j < points.length : end < total,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
      };
    },
  };
}

/** Index of the first time after `t` (times ascending). */
function indexAfter(times: readonly number[], t: number): number {
  const i = times.findIndex((time) => time > t);
  return i < 0 ? times.length : i;
}
