import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey } from '../credentials.js';
import type { OperationDeadline } from '../operation/index.js';

export interface CollapseOptions {
  /** Where `gateway_executions_total` (by `shared`: whether the operation shared another's execution) is registered. */
  registry?: Registry;
  /** Requests whose answer is their own (the upstream ledger): they never share an execution. */
  ownAnswer?: (context: ServerContext) => boolean;
}

type Execution = Promise<ExecutionResult | AsyncIterable<unknown>>;

interface InFlight {
  result: Execution;
  /** The leader's signal: when its caller went away its execution was cut short, not an answer to share. */
  signal: AbortSignal;
  /** The leader's deadline: its upstream calls end there, whoever waits on them. */
  deadline: OperationDeadline | undefined;
}

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
  const inflight = new Map<string, InFlight>();
  const documentIds = new WeakMap<DocumentNode, number>();
  const queries = new WeakMap<DocumentNode, Map<string | undefined, boolean>>();
  let nextDocumentId = 0;
  // One counter per registry, however many apps are built on it (tests build several).
  const executions = options.registry
    ? ((options.registry.getSingleMetric(EXECUTIONS) as Counter<'shared'> | undefined) ??
      new Counter({
        name: EXECUTIONS,
        help: 'Query executions by whether they shared one already in flight (shared="true") or ran (shared="false").',
        labelNames: ['shared'],
        registers: [options.registry],
      }))
    : null;

  const isQuery = (args: ExecutionArgs): boolean => {
    let byName = queries.get(args.document);
    if (!byName) queries.set(args.document, (byName = new Map<string | undefined, boolean>()));
    const name = args.operationName ?? undefined;
    let query = byName.get(name);
    if (query === undefined) byName.set(name, (query = getOperationAST(args.document, name)?.operation === OperationTypeNode.QUERY));
    return query;
  };

  const keyOf = (args: ExecutionArgs, context: Context): string | null => {
    if (!context.request || options.ownAnswer?.(context as Context & ServerContext) || !isQuery(args)) return null;
    let id = documentIds.get(args.document);
    if (id === undefined) documentIds.set(args.document, (id = nextDocumentId++));
    const subscriber = context.credentials.subscriber;
    const bound = context.cacheControl?.noCache ? 0 : (context.cacheControl?.maxAgeMs ?? '');
    return `${id}\n${args.operationName ?? ''}\n${subscriber ? subscriberKey(subscriber) : ''}\n${context.credentials.apiKey ? 'key' : ''}\n${bound}\n${JSON.stringify(args.variableValues ?? {})}`;
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const context = args.contextValue;
      const key = keyOf(args, context);
      if (key === null) return;
      const deadline = context.scope?.deadline;
      const run = (execArgs: ExecutionArgs): Execution => {
        executions?.inc({ shared: 'false' });
        let result: Execution;
        try {
          result = Promise.resolve(executeFn(execArgs) as ExecutionResult | AsyncIterable<unknown>);
        } catch (error) {
          result = Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
        const entry: InFlight = { result, signal: context.request.signal, deadline };
        inflight.set(key, entry);
        const forget = () => {
          if (inflight.get(key) === entry) inflight.delete(key);
        };
        result.then(forget, forget);
        return result;
      };
      // `passed`: a leader this request waited on and no longer shares (it failed, or ran out of time).
      const attempt = (execArgs: ExecutionArgs, passed?: InFlight): Execution => {
        const leader = inflight.get(key);
        if (!leader || leader === passed) return run(execArgs);
        // Waited on until its answer or this waiter's own deadline, whichever comes first.
        return settledBy(leader.result, deadline?.at ?? Infinity).then((settled) => {
          const result = settled?.value;
          if (!settled || settled.failed || leader.signal.aborted || isAsyncIterable(result)) return attempt(execArgs, leader);
          // The leader ran out of time before this waiter's: its answer may have calls cut short, so this one runs with its own.
          if (leader.deadline && deadline && leader.deadline.at < deadline.at && performance.now() >= leader.deadline.at) return attempt(execArgs, leader);
          executions?.inc({ shared: 'true' });
          return { ...result!, ...(result!.extensions ? { extensions: { ...result!.extensions } } : {}) };
        });
      };
      setExecuteFn((execArgs: ExecutionArgs) => attempt(execArgs));
    },
  };
}

/** How a leader's execution ended by `at` (a `performance.now()` time): its value, its failure, or undefined when still running. */
function settledBy(execution: Execution, at: number): Promise<{ value?: ExecutionResult | AsyncIterable<unknown>; failed?: true } | undefined> {
  const settled = execution.then(
    (value) => ({ value }),
    () => ({ failed: true as const }),
  );
  if (!Number.isFinite(at)) return settled;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, at - performance.now()));
  });
  return Promise.race([settled, expired]).finally(() => clearTimeout(timer));
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
