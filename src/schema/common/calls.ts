import type { FieldComplexity } from '@pothos/plugin-complexity';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { getOperationAST, type GraphQLField } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { ExecutionArgs } from 'graphql';
import type { CallCount } from '../../plugins/query-cost.js';
import { SEARCH_PAGE } from '../assets/inputs.js';

/**
 * The upstream calls an operation would make, counted before it runs (`plugins/query-cost.ts` refuses
 * an operation that would make more than the call budget). Its cost counts the work on what it
 * fetches; this counts what it makes the upstreams do, which depends on what the gateway holds: an
 * asset id the asset cache holds costs no call, an unknown one costs one, so aliases of lookups of
 * unknown ids are refused for the calls they would make even when their cost is within bounds.
 *
 * Each field below counts the calls it makes itself; a list's items count theirs once per item (its
 * declared size, as the cost counts it). Ids are counted once per operation, however many aliases name
 * them (one call per id and request: the asset loader's). Every other field makes no call of its own
 * (it is answered from its parent's record, the market index or the asset cache).
 */

/** What the gateway holds: whether an asset id is answered without a call (its copy fresh or within its revalidation window). */
export interface Holdings {
  holdsAsset(assetId: string): boolean;
}

type CallsOf = (args: Record<string, unknown>, tally: Tally) => number;

/** Calls per field, by `Type.field`, or by `*.field` for a field every type of an interface has. */
const CALLS: Record<string, CallsOf> = {
  'Query.asset': (args, tally) => tally.asset(args['id']),
  'Query.assets': (args, tally) => sum(args['ids'], (id) => tally.asset(id)),
  'Query.nodes': (args, tally) => sum(args['ids'], (id) => tally.node(id)),
  'Query.node': (args, tally) => tally.node(args['id']),
  'Query.markets': () => 1,
  // The search, and a lookup of each result the asset cache does not hold (its price is not in the summary).
  'Query.searchAssets': (args) => 1 + (typeof args['first'] === 'number' ? args['first'] : SEARCH_PAGE.default),
  // One positions read per wallet (POSITIONS_BATCH_SIZE is 1 by default), counted for each field that reads it.
  'Wallet.positions': () => 1,
  'Wallet.totalValueUsd': () => 1,
  'Wallet.valueHistory': () => 1,
  // A series is read with a call of its own; apyHistory reads up to 50 markets in one (its batch).
  '*.priceHistory': () => 1,
  '*.apyHistory': () => 1 / 50,
};

/** Counts ids across the operation, so each distinct one is counted once. */
class Tally {
  readonly #seen = new Set<string>();
  /** Whether the count looked at what the gateway holds (then it holds only for now, and is not remembered). */
  consulted = false;

  constructor(readonly holdings: Holdings | undefined) {}

  asset(id: unknown): number {
    if (typeof id !== 'string' || this.#seen.has(`Asset:${id}`)) return 0;
    this.#seen.add(`Asset:${id}`);
    this.consulted = true;
    return this.holdings?.holdsAsset(id) ? 0 : 1;
  }

  /** A global id: an asset's as `asset`; a position's reads its wallet's positions; the others resolve without a call of their own. */
  node(id: unknown): number {
    if (typeof id !== 'string') return 0;
    let decoded: { typename: string; id: string };
    try {
      decoded = decodeGlobalID(id);
    } catch {
      return 0;
    }
    if (decoded.typename === 'Asset') return this.asset(decoded.id);
    if (decoded.typename.endsWith('Position') && !this.#seen.has(id)) {
      this.#seen.add(id);
      return 1;
    }
    return 0;
  }
}

function sum(list: unknown, each: (item: unknown) => number): number {
  return Array.isArray(list) ? list.reduce((total: number, item) => total + each(item), 0) : 0;
}

/** The calls of the operation `args` selects; null when it cannot be counted (execution reports why). */
export function operationCalls(
  args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>,
  holdings: Holdings | undefined,
  maxNodes: number,
): CallCount | null {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return null;
  const tally = new Tally(holdings);
  const estimator: ComplexityEstimator = ({ type, field, args: fieldArgs, childComplexity }) => {
    const own = (CALLS[`${type.name}.${field.name}`] ?? CALLS[`*.${field.name}`])?.(fieldArgs, tally) ?? 0;
    return own + multiplierOf(field, fieldArgs) * childComplexity;
  };
  try {
    const calls = getComplexity({
      schema: args.schema,
      query: args.document,
      variables: (args.variableValues ?? {}) as Record<string, unknown>,
      ...(operation.name ? { operationName: operation.name.value } : {}),
      estimators: [estimator],
      maxQueryNodes: maxNodes,
    });
    return { calls: Math.ceil(calls), consulted: tally.consulted };
  } catch {
    // Past maxNodes or variables that do not coerce: the cost check refuses or execution reports it.
    return null;
  }
}

/** How many times a field's selection runs: the list size its declared cost multiplies by (1 for a single object). */
function multiplierOf(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  let declared = field.extensions?.['complexity'] as FieldComplexity<unknown, Record<string, unknown>> | undefined;
  if (typeof declared === 'function') declared = declared(args, {}, field as GraphQLField<unknown, unknown, Record<string, unknown>>);
  return typeof declared === 'object' ? Math.max(declared.multiplier ?? 1, 0) : 1;
}
