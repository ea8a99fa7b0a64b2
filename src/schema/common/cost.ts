import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import { MAX_HISTORY_POINTS, pointCount, type Resolution } from '../../models/index.js';
import type { WindowArgs, WindowRules } from './inputs.js';

/**
 * Costs of fields for `@pothos/plugin-complexity` (enforced by `plugins/query-cost.ts`), following the
 * work a field makes rather than the fields it selects: a field resolved from what its parent holds (a
 * scalar, a position's market from the index, a token from the asset cache) costs nothing; each item a
 * page or a list argument opens costs `ITEM_COST` (a record fetched, mapped and answered with whatever
 * is selected of it), each time series `SERIES_CALL_COST` and each of its points `POINT_COST`, and a list field itself 1. The
 * sub-selection is still multiplied by the list's size (a page of wallets each opening a page of
 * positions costs both pages' items). Connections carry the page size on the connection field, so
 * their `edges` multiply by 1 (builder.ts).
 */

/** What one item of a page or of a list argument costs: a record fetched, mapped and answered. */
export const ITEM_COST = 8;
/** What one point of a time series costs (a timestamp and a number, from one upstream answer). */
export const POINT_COST = 2;
/** What a time series costs besides its points: its own upstream call (series are not shared between requests). */
export const SERIES_CALL_COST = 50;

/** Series a wallet's value history is priced for (one per position): 2,000 points still fit in one operation's cost. */
export const VALUE_SERIES_PER_WALLET = 4;

/** Assumed size of a list with no size argument and no page (rewards, channels, apps, topics, actions). */
export const UNPAGINATED_LIST_BOUND = 5;

/** A page of `first` (or `last`) items, `default` when neither is given; out-of-range values are refused by the resolver, so they are clamped here. */
export function pageCost(page: { default: number; max: number }) {
  return (args: { first?: number | null; last?: number | null }): FieldComplexityValue =>
    items(clamp(args.first ?? args.last ?? page.default, page.max), ITEM_COST);
}

/** One item per entry of a list argument (`ids`, `addresses`): the resolver refuses more than its maximum, the cost counts them all. */
export function lengthCost<K extends string>(key: K) {
  return (args: { [P in K]: readonly unknown[] }): FieldComplexityValue => items(args[key].length, ITEM_COST);
}

/**
 * A time series: the points its window holds at its resolution, at most what one range may hold, with a
 * call of its own. `seriesFetched` series of the window are fetched to make it: a wallet's value is the
 * sum of one series per position, and is priced for each (scripts/cost-work.ts measures the work).
 */
export function historyCost<R extends Resolution>(rules: WindowRules<R>, seriesFetched = 1) {
  return (args: WindowArgs): FieldComplexityValue => {
    const { field, multiplier } = items(historyPoints(args, rules), POINT_COST * seriesFetched);
    return { field: SERIES_CALL_COST + field, multiplier };
  };
}

/**
 * A paged time series (`priceHistory`) costs the points it fetches, not those it returns: a range one
 * call holds (at most `MAX_HISTORY_POINTS`) is fetched whole for any page of it, so `first: 1` is
 * priced as the whole range; a longer range, the page's own steps. The selection runs once per point returned.
 */
export function pagedHistoryCost<R extends Resolution>(rules: WindowRules<R>) {
  return (args: WindowArgs & { first?: number | null; last?: number | null }): FieldComplexityValue => {
    const range = historyPoints(args, { ...rules, maxPoints: Number.POSITIVE_INFINITY });
    const returned = clamp(args.first ?? args.last ?? range, MAX_HISTORY_POINTS);
    const fetched = range <= MAX_HISTORY_POINTS ? range : returned;
    return { field: SERIES_CALL_COST + 1 + fetched * POINT_COST, multiplier: returned };
  };
}

/** A list of `n` items: 1 for the field, `each` per item, and the items' selection `n` times. */
function items(n: number, each: number): { field: number; multiplier: number } {
  return { field: 1 + n * each, multiplier: n };
}

function historyPoints<R extends Resolution>(args: WindowArgs, rules: WindowRules<R>): number {
  const now = Date.now();
  const resolution = args.resolution ?? rules.defaultResolution;
  return clamp(pointCount(args.from.getTime(), args.to?.getTime() ?? now, resolution, now), rules.maxPoints ?? MAX_HISTORY_POINTS);
}

function clamp(n: number, max: number): number {
  return Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), 0), max) : max;
}
