import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey } from '../credentials.js';
import { InFlight, NotShared } from '../inflight.js';

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
  // Incremental results are each request's own stream: never shared.
  const inflight = new InFlight<string, Executed>((result) => !isAsyncIterable(result));
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
      const deadlineAt = context.scope?.deadline?.at;
      // The leader's execution is its request's: its caller's abort or deadline cut it short.
      const owner = { signal: context.request.signal, deadlineAt };
      const run = (execArgs: ExecutionArgs): Execution => {
        executions?.inc({ shared: 'false' });
        return inflight.start(key, () => Promise.resolve(executeFn(execArgs) as Executed), { owner, meta: undefined }).result;
      };
      // Its own abort needs no leaving: the leader settles soon and the answer goes nowhere. At its
      // deadline, or when the leader's outcome is not its to share (a failure included), it runs its own.
      const waiter = { deadlineAt, expired: () => new NotShared() };
      const attempt = (execArgs: ExecutionArgs, passed?: unknown): Execution => {
        const leader = inflight.get(key);
        if (!leader || leader === passed) return run(execArgs);
        return leader.join(waiter).answer.then(
          (result) => {
            executions?.inc({ shared: 'true' });
            const top = result as ExecutionResult;
            return { ...top, ...(top.extensions ? { extensions: { ...top.extensions } } : {}) };
          },
          () => attempt(execArgs, leader),
        );
      };
      setExecuteFn((execArgs: ExecutionArgs) => attempt(execArgs));
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
