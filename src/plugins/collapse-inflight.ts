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
 */
export function useCollapseInflight(options: CollapseOptions = {}): Plugin<Context> {
  return createCollapse(options).plugin;
}

/**
 * The collapse's plugin, and its steps for the direct path, which begins a leader's execution itself so
 * that the execution runs in the direct path's frame rather than under the collapse's:
 *
 *     const joined = collapse.join(args, context, executeFn);
 *     const result = await (typeof joined === 'string' ? collapse.lead(joined, context, executeFn(args)) : (joined ?? executeFn(args)));
 */
export interface Collapse {
  plugin: Plugin<Context>;
  /**
   * An identical execution's answer in flight to wait on (running its own when that answer is not its
   * to share); else the key to `lead` under once its execution began, or null when it never collapses.
   */
  join(args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): Execution | string | null;
  /** Lists a request's execution, begun by its caller, under `key` for identical ones to join until it settles: its answer. */
  lead(key: string, context: Context, pending: unknown): Execution;
  /** `join` and `lead` in one call. */
  run(args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): unknown;
}

/** A variables object with no entry, which every request without variables carries or lacks: its key's part needs no serializing. */
function noVariables(variables: ExecutionArgs['variableValues']): boolean {
  for (const _ in variables) return false;
  return true;
}

/** The key's tail of a request with no app key, no client bound on age and no variables: most requests'. */
const PLAIN_TAIL = '\n\n\n{}';

export function createCollapse(options: CollapseOptions = {}): Collapse {
  // Incremental results are each request's own stream, and an answer cut short by its leader's deadline
  // is no answer for a waiter still waiting (whose deadline is later): neither is shared. The answer is
  // read rather than the clock because a deadline's timer may fire a little before `performance.now()` reaches it.
  // A leader is listed as its request's context, read for its signal and deadline only if someone joins it.
  const inflight = new InFlight<string, Executed, undefined, Context>((result) => !isAsyncIterable(result) && !cutByDeadline(result), OWNERS);
  // Per parsed document (the parse cache hands out one per text) and operation name: the key's start, or null for a non-query.
  const prefixes = new WeakMap<DocumentNode, Map<string | undefined, string | null>>();
  let nextDocumentId = 0;
  const executions = options.registry ? executionsOf(options.registry) : null;

  const prefixOf = (document: DocumentNode, operationName: string | undefined): string | null => {
    let byName = prefixes.get(document);
    if (!byName) prefixes.set(document, (byName = new Map<string | undefined, string | null>()));
    let prefix = byName.get(operationName);
    if (prefix === undefined) {
      const query = getOperationAST(document, operationName)?.operation === OperationTypeNode.QUERY;
      byName.set(operationName, (prefix = query ? `${nextDocumentId++}\n${operationName ?? ''}\n` : null));
    }
    return prefix;
  };

  // The subscriber's key is the one the request's identity lookup and the response cache use: made once per request (credentials.ts).
  const keyOf = (args: ExecutionArgs, context: Context): string | null => {
    if (!context.request || options.ownAnswer?.(context as Context & ServerContext)) return null;
    const prefix = prefixOf(args.document, args.operationName ?? undefined);
    if (prefix === null) return null;
    const { subscriber, apiKey } = context.credentials;
    const cacheControl = context.cacheControl;
    const bound = cacheControl ? (cacheControl.noCache ? 0 : (cacheControl.maxAgeMs ?? '')) : '';
    const plain = noVariables(args.variableValues);
    const tail = plain && !apiKey && bound === '' ? PLAIN_TAIL : `\n${apiKey ? 'key' : ''}\n${bound}\n${plain ? '{}' : JSON.stringify(args.variableValues)}`;
    return subscriber ? prefix + subscriberKey(subscriber) + tail : prefix + tail;
  };

  // A waiter at its deadline runs its own, as it does when the leader's outcome is not its to share.
  const join = (leader: Flight<string, Executed, undefined>, key: string, context: Context, args: ExecutionArgs, executeFn: (args: ExecutionArgs) => unknown): Execution =>
    leader.join({ deadlineAt: context.scope?.deadline?.at, expired: notShared }).answer.then(
      (result) => {
        if (executions) executions.shared++;
        const top = result as ExecutionResult;
        // Each waiter's own top level: a hook annotating one request's result never writes into another's.
        return { ...top, ...(top.extensions ? { extensions: { ...top.extensions } } : {}) };
      },
      () => {
        // Its own abort needs no leaving: the leader settles soon and the answer goes nowhere.
        const next = inflight.get(key);
        return next && next !== leader ? join(next, key, context, args, executeFn) : lead(key, context, begin(executeFn, args));
      },
    );

  /** The request's own execution, listed under `key` until it settles; its caller's abort or deadline cuts it short, for its waiters too. */
  async function lead(key: string, context: Context, pending: unknown): Execution {
    if (executions) executions.ran++;
    inflight.lead(key, context);
    let result: Executed;
    try {
      result = (await pending) as Executed;
    } catch (error) {
      inflight.reject(key, context, error);
      throw error;
    }
    inflight.resolve(key, context, result);
    return result;
  }

  /** The request's execution under `key`: a leader's answer in flight, or its own (then leading). */
  const runKeyed = (key: string, args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): Execution => {
    const leader = inflight.get(key);
    return leader ? join(leader, key, context, args, executeFn) : lead(key, context, begin(executeFn, args));
  };

  return {
    plugin: {
      onExecute({ args, executeFn, setExecuteFn }) {
        const context = args.contextValue;
        const key = keyOf(args, context);
        if (key !== null) setExecuteFn((execArgs: ExecutionArgs) => runKeyed(key, execArgs, context, executeFn));
      },
    },
    join(args, context, executeFn) {
      const key = keyOf(args, context);
      if (key === null) return null;
      const leader = inflight.get(key);
      return leader ? join(leader, key, context, args, executeFn) : key;
    },
    lead,
    run(args, context, executeFn) {
      const key = keyOf(args, context);
      return key === null ? executeFn(args) : runKeyed(key, args, context, executeFn);
    },
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
