import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey } from '../credentials.js';
import { InFlight, NotShared } from '../inflight.js';
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

/** The collapse's plugin, and `run`: an operation's execution, shared with an identical one in flight (the direct path's too). */
export interface Collapse {
  plugin: Plugin<Context>;
  run(args: ExecutionArgs, context: Context, executeFn: (args: ExecutionArgs) => unknown): unknown;
}

export function createCollapse(options: CollapseOptions = {}): Collapse {
  // Incremental results are each request's own stream, and an answer cut short by its leader's deadline
  // is no answer for a waiter still waiting (whose deadline is later): neither is shared. The answer is
  // read rather than the clock because a deadline's timer may fire a little before `performance.now()` reaches it.
  const inflight = new InFlight<string, Executed>((result) => !isAsyncIterable(result) && !cutByDeadline(result));
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
    return `${prefix}${subscriber ? subscriberKey(subscriber) : ''}\n${apiKey ? 'key' : ''}\n${bound}\n${JSON.stringify(args.variableValues ?? {})}`;
  };

  /** The request's execution: a leader's answer in flight for the same key, or its own (then led by it). */
  const execute = (key: string, context: Context, execArgs: ExecutionArgs, executeFn: (args: ExecutionArgs) => unknown, passed?: unknown): Execution => {
    const leader = inflight.get(key);
    const deadlineAt = context.scope?.deadline?.at;
    if (!leader || leader === passed) {
      if (executions) executions.ran++;
      // The execution is its request's: that caller's abort or deadline cuts it short, for its waiters too.
      const owner = { signal: context.request.signal, deadlineAt };
      return inflight.start(key, () => Promise.resolve(executeFn(execArgs) as Executed), { owner, meta: undefined }).result;
    }
    // Its own abort needs no leaving: the leader settles soon and the answer goes nowhere. At its
    // deadline, or when the leader's outcome is not its to share (a failure included), it runs its own.
    return leader.join({ deadlineAt, expired: () => new NotShared() }).answer.then(
      (result) => {
        if (executions) executions.shared++;
        const top = result as ExecutionResult;
        return { ...top, ...(top.extensions ? { extensions: { ...top.extensions } } : {}) };
      },
      () => execute(key, context, execArgs, executeFn, leader),
    );
  };

  return {
    plugin: {
      onExecute({ args, executeFn, setExecuteFn }) {
        const context = args.contextValue;
        const key = keyOf(args, context);
        if (key !== null) setExecuteFn((execArgs: ExecutionArgs) => execute(key, context, execArgs, executeFn));
      },
    },
    run(args, context, executeFn) {
      const key = keyOf(args, context);
      return key === null ? executeFn(args) : execute(key, context, args, executeFn);
    },
  };
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

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
