import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { Context } from '../context.js';
import { subscriberKey } from '../credentials.js';

export interface CollapseOptions {
  /** Where `gateway_executions_total` (by `shared`: whether the operation shared another's execution) is registered. */
  registry?: Registry;
  /** Requests whose answer is their own (the upstream ledger): they never share an execution. */
  ownAnswer?: (request: Request) => boolean;
}

type Execution = Promise<ExecutionResult | AsyncIterable<unknown>>;

interface InFlight {
  result: Execution;
  /** The leader's signal: when its caller went away its execution was cut short, not an answer to share. */
  signal: AbortSignal;
}

const EXECUTIONS = 'gateway_executions_total';

/** Request headers besides the credentials that change what an operation answers. */
const ANSWER_HEADERS = ['cache-control', 'x-request-timeout-ms'];

/**
 * Identical queries in flight run once (as Hive Router's inbound request deduplication does): an
 * operation that arrives while the same one is executing for the same caller waits for that execution
 * and answers with its result instead of running its own. "The same" is the same parsed document (the
 * parse cache hands out one per text), operation name, variables, credentials (hashed) and the headers
 * that bound an answer (`Cache-Control`, the deadline). With the response cache on this is what keeps
 * a busy gateway from executing an expired key once per concurrent request (a stampede); with it off,
 * what keeps concurrent identical requests from repeating their upstream calls.
 *
 * Mutations and subscriptions never collapse, nor do requests that get the ledger, nor incremental
 * results (`@defer` / `@stream`: each waiter then runs its own). A leader whose caller went away was cut
 * short by its own signal: whoever waited on it runs its own execution. Each waiter gets a copy of the
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
    const { request } = context;
    if (!request || options.ownAnswer?.(request) || !isQuery(args)) return null;
    let id = documentIds.get(args.document);
    if (id === undefined) documentIds.set(args.document, (id = nextDocumentId++));
    const subscriber = context.credentials.subscriber;
    const headers = ANSWER_HEADERS.map((name) => request.headers.get(name) ?? '').join('\n');
    return `${id}\n${args.operationName ?? ''}\n${subscriber ? subscriberKey(subscriber) : ''}\n${context.credentials.apiKey ? 'key' : ''}\n${headers}\n${JSON.stringify(args.variableValues ?? {})}`;
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const context = args.contextValue;
      const key = keyOf(args, context);
      if (key === null) return;
      const run = (execArgs: ExecutionArgs): Execution => {
        executions?.inc({ shared: 'false' });
        let result: Execution;
        try {
          result = Promise.resolve(executeFn(execArgs) as ExecutionResult | AsyncIterable<unknown>);
        } catch (error) {
          result = Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
        const entry: InFlight = { result, signal: context.request.signal };
        inflight.set(key, entry);
        const forget = () => {
          if (inflight.get(key) === entry) inflight.delete(key);
        };
        result.then(forget, forget);
        return result;
      };
      setExecuteFn((execArgs: ExecutionArgs) => {
        const leader = inflight.get(key);
        if (!leader) return run(execArgs);
        return leader.result.then(
          (result) => {
            if (leader.signal.aborted || isAsyncIterable(result)) return run(execArgs);
            executions?.inc({ shared: 'true' });
            return { ...result, ...(result.extensions ? { extensions: { ...result.extensions } } : {}) };
          },
          () => run(execArgs),
        );
      });
    },
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
