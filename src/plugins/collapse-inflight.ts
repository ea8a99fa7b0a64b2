import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey } from '../credentials.js';
import { InFlight, NotShared, toError, type Flight, type Owners } from '../inflight.js';
import { isDeadlineExceeded } from '../operation/index.js';

export interface CollapseOptions {
  /** Where `gateway_executions_total` (by `shared`: whether the operation shared another's execution) is registered. */
  registry?: Registry;
  /** Requests whose answer is their own (the upstream ledger): they never share an execution. */
  ownAnswer?: (context: ServerContext) => boolean;
}

type Executed = ExecutionResult | AsyncIterable<unknown>;
type Execution = Promise<Executed>;

const EXECUTIONS = 'gateway_executions_total';

/**
 * Identical queries in flight run once (as Hive Router's inbound request deduplication does): an
 * operation that arrives while the same one is executing for the same caller waits for that execution
 * and answers with its result instead of running its own. "The same" is the same parsed document (the
 * parse cache hands out one per text), operation name, variables, credentials (hashed) and the client's
 * `Cache-Control` (it bounds how old the shared copies in the answer may be). With the response cache on this is what keeps
 * a busy gateway from executing an expired key once per concurrent request (a stampede); with it off,
 * what keeps concurrent identical requests from repeating their upstream calls.
 *
 * Mutations and subscriptions never collapse, nor do requests that get the ledger, nor incremental
 * results (`@defer` / `@stream`: each waiter then runs its own). A leader whose caller went away was cut
 * short by its own signal: whoever waited on it runs its own execution.
 *
 * Each waiter keeps its own deadline: it waits on a leader no longer than its own time, and the answer
 * of a leader that ran out of time before the waiter's deadline (its calls cut short) is not shared:
 * the waiter then runs alone with the time it has left, or joins a newer leader. Each waiter gets a copy of the
 * result's top level, so a hook that annotates one request's result (the response cache, the error
 * log) never writes into another's.
 *
 * The collapse's plugin, and its steps for the direct path, which begins a leader's execution itself so
 * that the execution runs in the direct path's frame rather than under the collapse's:
 *
 *     const joined = collapse.join(args, context, executeFn);
 *     const result = await (typeof joined === 'string' ? collapse.lead(args, joined, context, executeFn(args)) : (joined ?? executeFn(args)));
 */
export interface Collapse {
  plugin: Plugin<Context>;
  /**
   * An identical execution's answer in flight to wait on (running its own when that answer is not its
   * to share); else the key to `lead` under once its execution began, or null when it never collapses.
   */
  join(args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): Execution | string | null;
  /** Lists a request's execution, begun by its caller, under the `key` `join` gave for identical ones to join until it settles: its answer. */
  lead(args: ExecutionArgs, key: string, context: Context, pending: unknown): Execution;
}

/** A variables object with no entry, which every request without variables carries or lacks: its key's part needs no serializing. */
function noVariables(variables: ExecutionArgs['variableValues']): boolean {
  for (const _ in variables) return false;
  return true;
}

type Flights = InFlight<string, Executed, undefined, Context>;

export function createCollapse(options: CollapseOptions = {}): Collapse {
  // Incremental results are each request's own stream, and an answer cut short by its leader's deadline
  // is no answer for a waiter still waiting (whose deadline is later): neither is shared. The answer is
  // read rather than the clock because a deadline's timer may fire a little before `performance.now()` reaches it.
  const shares = (result: Executed) => !isAsyncIterable(result) && !cutByDeadline(result);
  // Per parsed document (the parse cache hands out one per text) and operation name: its executions in
  // flight, or null for a non-query. A leader is listed as its request's context (read for its signal
  // and deadline only if someone joins it), under the key of what else tells two executions apart.
  const operations = new WeakMap<DocumentNode, Map<string | undefined, Flights | null>>();
  const executions = options.registry ? executionsOf(options.registry) : null;

  const flightsOf = (args: ExecutionArgs): Flights | null => {
    let byName = operations.get(args.document);
    if (!byName) operations.set(args.document, (byName = new Map<string | undefined, Flights | null>()));
    const operationName = args.operationName ?? undefined;
    let flights = byName.get(operationName);
    if (flights === undefined) {
      const query = getOperationAST(args.document, operationName)?.operation === OperationTypeNode.QUERY;
      byName.set(operationName, (flights = query ? new InFlight(shares, OWNERS) : null));
    }
    return flights;
  };

  const collapsible = (context: Context) => context.request && !options.ownAnswer?.(context as Context & ServerContext);

  // The caller by the key the request's identity lookup and the response cache use, made once per request
  // (credentials.ts); alone for most requests (no app key, age bound or variables), a string whose hash the
  // map computes once; else with the rest after a line break, which no subscriber key holds.
  const keyOf = (args: ExecutionArgs, context: Context): string => {
    const { subscriber, apiKey } = context.credentials;
    const caller = subscriber ? subscriberKey(subscriber) : '';
    const cacheControl = context.cacheControl;
    const bound = cacheControl ? (cacheControl.noCache ? 0 : (cacheControl.maxAgeMs ?? '')) : '';
    const plain = noVariables(args.variableValues);
    if (plain && !apiKey && bound === '') return caller;
    return `${caller}\n${apiKey ? 'key' : ''}\n${bound}\n${plain ? '{}' : JSON.stringify(args.variableValues)}`;
  };

  // A waiter at its deadline runs its own, as it does when the leader's outcome is not its to share.
  const join = (flights: Flights, leader: Flight<string, Executed, undefined>, key: string, context: Context, args: ExecutionArgs, executeFn: (args: ExecutionArgs) => unknown): Execution =>
    leader.join({ deadlineAt: context.scope?.deadline?.at, expired: notShared }).answer.then(
      (result) => {
        if (executions) executions.shared++;
        const top = result as ExecutionResult;
        // Each waiter's own top level: a hook annotating one request's result never writes into another's.
        return { ...top, ...(top.extensions ? { extensions: { ...top.extensions } } : {}) };
      },
      () => {
        // Its own abort needs no leaving: the leader settles soon and the answer goes nowhere.
        const next = flights.get(key);
        return next && next !== leader ? join(flights, next, key, context, args, executeFn) : lead(flights, key, context, begin(executeFn, args));
      },
    );

  /** The request's own execution, listed under `key` until it settles; its caller's abort or deadline cuts it short, for its waiters too. */
  async function lead(flights: Flights, key: string, context: Context, pending: unknown): Execution {
    if (executions) executions.ran++;
    flights.lead(key, context);
    let result: Executed;
    try {
      result = (await pending) as Executed;
    } catch (error) {
      flights.reject(key, context, error);
      throw error;
    }
    flights.resolve(key, context, result);
    return result;
  }

  /** The request's execution under `key`: a leader's answer in flight, or its own (then leading). */
  const runKeyed = (flights: Flights, key: string, args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): Execution => {
    const leader = flights.get(key);
    return leader ? join(flights, leader, key, context, args, executeFn) : lead(flights, key, context, begin(executeFn, args));
  };

  return {
    plugin: {
      onExecute({ args, executeFn, setExecuteFn }) {
        const context = args.contextValue;
        const flights = collapsible(context) ? flightsOf(args) : null;
        if (!flights) return;
        const key = keyOf(args, context);
        setExecuteFn((execArgs: ExecutionArgs) => runKeyed(flights, key, execArgs, context, executeFn));
      },
    },
    join(args, context, executeFn) {
      const flights = collapsible(context) ? flightsOf(args) : null;
      if (!flights) return null;
      const key = keyOf(args, context);
      const leader = flights.get(key);
      return leader ? join(flights, leader, key, context, args, executeFn) : key;
    },
    lead: (args, key, context, pending) => lead(flightsOf(args)!, key, context, pending),
  };
}

/** An execution begun: its promise, or its result, or the rejection of an execution that threw before returning one. */
function begin(executeFn: (args: ExecutionArgs) => unknown, args: ExecutionArgs): unknown {
  try {
    return executeFn(args);
  } catch (error) {
    return Promise.reject(toError(error));
  }
}

interface Executions {
  ran: number;
  shared: number;
}

/** One counter per registry, however many apps are built on it (tests build several). */
const executionsByRegistry = new WeakMap<Registry, Executions>();

/**
 * `gateway_executions_total`, tallied in two numbers that the counter takes when it is collected (a
 * scrape, or a test reading it), rather than prom-client's label handling on every request.
 */
function executionsOf(registry: Registry): Executions {
  const held = executionsByRegistry.get(registry);
  if (held) return held;
  const counts = { ran: 0, shared: 0 };
  executionsByRegistry.set(registry, counts);
  new Counter({
    name: EXECUTIONS,
    help: 'Query executions by whether they shared one already in flight (shared="true") or ran (shared="false").',
    labelNames: ['shared'],
    registers: [registry],
    collect() {
      if (counts.ran > 0) this.inc({ shared: 'false' }, counts.ran);
      if (counts.shared > 0) this.inc({ shared: 'true' }, counts.shared);
      counts.ran = counts.shared = 0;
    },
  });
  return counts;
}

/** Whether some field of an answer failed because its request's deadline passed. */
function cutByDeadline(result: ExecutionResult): boolean {
  return result.errors?.some((error) => error.extensions?.['reason'] === 'DEADLINE' || isDeadlineExceeded(error.originalError)) ?? false;
}

/** A leading request's signal and deadline, read from its context. */
const OWNERS: Owners<Context> = {
  signal: (context) => context.request.signal,
  deadlineAt: (context) => context.scope?.deadline?.at,
};

function notShared(): Error {
  return new NotShared();
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
