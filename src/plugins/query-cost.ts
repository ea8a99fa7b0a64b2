import type { FieldComplexity } from '@pothos/plugin-complexity';
import { getOperationAST, getVariableValues, type DocumentNode, type ExecutionArgs, type GraphQLError, type GraphQLField } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { gatewayError } from '../errors.js';

export interface QueryCostOptions {
  /** Largest admitted cost (`MAX_QUERY_COST`; no default here: config.ts holds the calibrated one). */
  maxCost: number;
  /**
   * Selections measured at most, fragments spread (graphql-query-complexity's `maxQueryNodes`);
   * default 10,000. Past it the operation is refused without finishing the count.
   */
  maxNodes?: number;
  /**
   * Costs remembered per parsed document (Yoga's parser cache hands out the same document for the
   * same text), keyed by operation name and variables; default 64 per document, for a minute (a
   * history window that ends "now" grows). Costs depend on arguments only, never on the caller.
   */
  cachePerDocument?: number;
  /**
   * Upstream calls an admitted operation may make at most, counted before it runs with what the gateway
   * holds (`schema/common/calls.ts`, handed in by app.ts); `DEFAULT_MAX_QUERY_CALLS` in the gateway.
   * Absent: not counted.
   */
  maxCalls?: number;
  /** Counts the upstream calls of an operation; null when it cannot be counted (execution reports why). */
  countCalls?: (args: ExecutionArgs, maxNodes: number) => CallCount | null;
}

/** An operation's upstream calls, and whether the count depends on what the gateway holds now. */
export interface CallCount {
  calls: number;
  consulted: boolean;
}

/**
 * Refuses an operation whose cost is above `maxCost` before anything of it runs: `QUERY_TOO_COMPLEX`
 * with `extensions.cost` and `extensions.maxCost`, HTTP 400 over HTTP. List sizes come from the
 * arguments with this request's variables, so the check runs when the operation is about to execute
 * or subscribe, for the operation that runs, over HTTP, SSE and WebSocket alike (all go through this
 * envelop pipeline).
 */
export function useQueryCost(options: QueryCostOptions): Plugin {
  return createQueryCost(options).plugin;
}

/** The plugin, and its decision for an operation about to run (the direct path asks it before anything runs). */
export function createQueryCost(options: QueryCostOptions): { plugin: Plugin; refusal: (args: ExecutionArgs) => GraphQLError | null } {
  const cached = new WeakMap<DocumentNode, LRUCache<string, Measured>>();
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  const measure = (args: ExecutionArgs): Measured => {
    let costs = cached.get(args.document);
    // `ttlResolution: 0`: a clock read per lookup, not lru-cache's timer per millisecond of its clock cache.
    if (!costs) cached.set(args.document, (costs = new LRUCache({ max: options.cachePerDocument ?? 64, ttl: 60_000, ttlResolution: 0 })));
    const key = `${args.operationName ?? ''}\0${JSON.stringify(args.variableValues ?? {})}`;
    // Large variables (a send to 10,000 wallets) would make large keys: measured, not kept.
    if (key.length > MAX_CACHE_KEY_LENGTH) return { cost: operationCost(args, maxNodes) };
    let entry = costs.get(key);
    if (!entry) costs.set(key, (entry = { cost: operationCost(args, maxNodes) }));
    return entry;
  };
  // Counted when the cost is within the limit; remembered with it unless it depends on what the gateway holds now.
  const callsOf = (args: ExecutionArgs, measured: Measured): CallCount | null => {
    if (measured.calls !== undefined) return measured.calls;
    const counted = options.countCalls?.(args, maxNodes) ?? null;
    if (!counted?.consulted) measured.calls = counted;
    return counted;
  };
  const check = (args: ExecutionArgs, refuse: (error: GraphQLError) => void) => {
    const measured = measure(args);
    const { cost } = measured;
    if (cost === 'too-large') refuse(tooManyNodes(maxNodes, options.maxCost));
    else if (cost !== null && cost > options.maxCost) refuse(tooComplex(cost, options.maxCost));
    else if (cost !== null && options.maxCalls !== undefined) {
      const calls = callsOf(args, measured)?.calls ?? 0;
      if (calls > options.maxCalls) refuse(tooManyCalls(calls, options.maxCalls, cost, options.maxCost));
    }
  };
  const plugin: Plugin = {
    onExecute: ({ args, setResultAndStopExecution }) => check(args, (error) => setResultAndStopExecution({ errors: [error] })),
    onSubscribe: ({ args, setResultAndStopExecution }) => check(args, (error) => setResultAndStopExecution({ errors: [error] })),
  };
  const refusal = (args: ExecutionArgs): GraphQLError | null => {
    let refused: GraphQLError | null = null;
    check(args, (error) => (refused = error));
    return refused;
  };
  return { plugin, refusal };
}

const DEFAULT_MAX_NODES = 10_000;

/**
 * The upstream calls an admitted operation may make at most, counted before it runs: half the default
 * per-operation call budget (UPSTREAM_CALL_BUDGET, 500), which leaves room for the calls the count does
 * not see (the token lookups of a cold asset cache) and keeps an operation's CPU within 250 ms
 * (scripts/cost-work.ts: 500 asset lookups of unknown ids took 237 ms of CPU). A lower budget still
 * stops an operation at its runtime count.
 */
export const DEFAULT_MAX_QUERY_CALLS = 250;
const MAX_CACHE_KEY_LENGTH = 4096;

type Cost = number | null | 'too-large';
interface Measured {
  cost: Cost;
  calls?: CallCount | null;
}
type CostArgs = Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues' | 'contextValue'>;

/**
 * The cost of the operation `args` selects, with its variables: every selected field costs what it
 * declares (`complexity` beside the field, `@pothos/plugin-complexity`'s option; 1 by default), plus its
 * sub-selection's cost times the size of the list it opens. Fragments on an interface cost the most
 * expensive of the types the field can return, not their sum (graphql-query-complexity's traversal).
 * `null` when it cannot be measured (no such operation, variables that do not coerce): execution then
 * reports that error itself. `too-large` past `maxNodes` selections.
 */
export function operationCost(args: CostArgs, maxNodes = DEFAULT_MAX_NODES): Cost {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return null;
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  if (getVariableValues(args.schema, operation.variableDefinitions ?? [], variables).errors) return null;
  try {
    return getComplexity({
      schema: args.schema,
      query: args.document,
      variables,
      ...(operation.name ? { operationName: operation.name.value } : {}),
      ...(args.contextValue ? { context: args.contextValue as Record<string, unknown> } : {}),
      estimators: [pothosComplexity],
      maxQueryNodes: maxNodes,
    });
  } catch (error) {
    if ((error as Error).message.includes('maximum allowed number of nodes')) return 'too-large';
    throw error;
  }
}

/** Reads the cost a field declares through `@pothos/plugin-complexity` (every Pothos field has one). */
const pothosComplexity: ComplexityEstimator = ({ field, args, childComplexity, context }) => {
  let declared = field.extensions?.['complexity'] as FieldComplexity<unknown, Record<string, unknown>> | undefined;
  if (typeof declared === 'function') declared = declared(args, context ?? {}, field as GraphQLField<unknown, unknown, Record<string, unknown>>);
  // Introspection's own fields declare nothing.
  if (declared === undefined) return 1 + childComplexity;
  if (typeof declared === 'number') return declared + childComplexity;
  return (declared.field ?? 1) + Math.max(declared.multiplier ?? 1, 0) * childComplexity;
};

function tooComplex(cost: number, maxCost: number): GraphQLError {
  return gatewayError(
    `This operation costs ${cost}, above the limit of ${maxCost}: ask for fewer items (smaller first, fewer ids or aliases, less nesting).`,
    'QUERY_TOO_COMPLEX',
    { cost, maxCost, http: { status: 400 } },
  );
}

function tooManyCalls(calls: number, maxCalls: number, cost: number, maxCost: number): GraphQLError {
  return gatewayError(
    `This operation would make ${calls} upstream calls, above the limit of ${maxCalls}: ask for fewer ids the gateway does not hold yet, fewer wallets or series, or fewer aliases.`,
    'QUERY_TOO_COMPLEX',
    { calls, maxCalls, cost, maxCost, http: { status: 400 } },
  );
}

function tooManyNodes(maxNodes: number, maxCost: number): GraphQLError {
  return gatewayError(
    `This operation selects more than ${maxNodes} fields once its fragments are spread: its cost was not measured further.`,
    'QUERY_TOO_COMPLEX',
    { maxCost, http: { status: 400 } },
  );
}
