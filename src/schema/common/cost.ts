import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import type { Resolution } from '../../models/index.js';
import { MAX_HISTORY_POINTS, pointCount } from '../../upstream/index.js';
import type { WindowArgs, WindowRules } from './inputs.js';

/**
 * Costs of list fields for `@pothos/plugin-complexity` (enforced by `plugins/query-cost.ts`). Every
 * selected field costs 1; a field's sub-selection is multiplied by the size of the list it opens, read
 * from the field's own arguments (variables already substituted). Connections carry the page size on
 * the connection field, so their `edges` multiply by 1 (builder.ts).
 */

/** Assumed size of a list with no size argument and no page (rewards, channels, apps, topics, actions). */
export const UNPAGINATED_LIST_BOUND = 5;

/** A page of `first` (or `last`) items, `default` when neither is given; out-of-range values are refused by the resolver, so they are clamped here. */
export function pageCost(page: { default: number; max: number }) {
  return (args: { first?: number | null; last?: number | null }): FieldComplexityValue => ({
    field: 1,
    multiplier: clamp(args.first ?? args.last ?? page.default, page.max),
  });
}

/** One item per entry of a list argument (`ids`, `addresses`): the resolver refuses more than its maximum, the cost counts them all. */
export function lengthCost<K extends string>(key: K) {
  return (args: { [P in K]: readonly unknown[] }): FieldComplexityValue => ({ field: 1, multiplier: args[key].length });
}

/** A time series: the points its window holds at its resolution, at most what one range may hold. */
export function historyCost<R extends Resolution>(rules: WindowRules<R>) {
  return (args: WindowArgs): FieldComplexityValue => ({ field: 1, multiplier: historyPoints(args, rules) });
}

/** A paged time series (`priceHistory`): `first`/`last` when given, else the window's points. */
export function pagedHistoryCost<R extends Resolution>(rules: WindowRules<R>) {
  return (args: WindowArgs & { first?: number | null; last?: number | null }): FieldComplexityValue => ({
    field: 1,
    multiplier: clamp(args.first ?? args.last ?? historyPoints(args, rules), MAX_HISTORY_POINTS),
  });
}

function historyPoints<R extends Resolution>(args: WindowArgs, rules: WindowRules<R>): number {
  const now = Date.now();
  const resolution = args.resolution ?? rules.defaultResolution;
  return clamp(pointCount(args.from.getTime(), args.to?.getTime() ?? now, resolution, now), rules.maxPoints ?? MAX_HISTORY_POINTS);
}

function clamp(n: number, max: number): number {
  return Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), 0), max) : max;
}
