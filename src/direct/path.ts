import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGraphQLError, type YogaInitialContext } from 'graphql-yoga';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Context, ServerContext } from '../context.js';
import type { HitRequest } from '../fast-path/hit-request.js';
import type { CorsOptions } from '../fast-path/hits.js';
import type { FastPath } from '../node-http.js';
import type { CompressionSlots } from '../plugins/compression.js';
import { runCompiled, type CompiledDocuments } from '../plugins/jit.js';
import type { Collapse } from '../plugins/collapse-inflight.js';
import type { DirectObservation } from '../plugins/operation-metrics.js';
import type { RateLimit } from '../plugins/rate-limit.js';
import { requestDeadline, REQUEST_TIMEOUT_HEADER, type RequestDeadlineOptions } from '../plugins/request-deadline.js';
import { createRequestContext } from '../request-context.js';
import { abortWhenClosed } from '../admission.js';
import { maskError } from '../errors.js';
import { errorLogger, yogaLogging } from '../plugins/error-log.js';
import { acceptedRequestId, REQUEST_ID, REQUEST_ID_HEADER } from '../request-id.js';
import { served } from '../response-cache/held.js';
import type { ResponseCacheReader } from '../response-cache/plugin.js';
import type { CachePolicy } from '../response-cache/policy.js';
import type { Services } from '../services.js';
import { writeResult, type AnswerHead } from './answer.js';
import { createPlans, type Plan, type PlanOptions } from './plans.js';

/** The pipeline's steps the direct path calls: each is the function the Yoga plugin calls too (app.ts hands them in). */
export interface DirectPathOptions extends PlanOptions {
  schema: GraphQLSchema;
  services: Services;
  debugLedger: boolean;
  deadline: RequestDeadlineOptions;
  /** Whether a query text runs without a trusted document (no manifest, or arbitrary documents allowed). */
  arbitraryDocuments: boolean;
  /** The parse cache's document for a text it holds. */
  documentOf(query: string): DocumentNode | undefined;
  /** Whether a document was validated before, with every rule, and passed (plugins/validated-documents.ts). */
  passed(document: DocumentNode): boolean;
  compiled: CompiledDocuments;
  /** The cost limit's refusal of an operation, or null (plugins/query-cost.ts). */
  costRefusal(args: ExecutionArgs): GraphQLError | null;
  rateLimit?: RateLimit['admit'];
  collapse: Collapse;
  /** The operation metrics' series (plugins/operation-metrics.ts). */
  observe: DirectObservation;
  cache: ResponseCacheReader | null;
  /** Whether masked errors carry the original's details (Yoga's `maskedErrors.isDev`). */
  development: boolean;
  cors?: (origin: string) => CorsOptions | false;
  slots: CompressionSlots;
}

/**
 * Executed requests answered at the node listener, without Yoga's server adapter and envelop: for the
 * common shape only (a query text the parse cache holds, validated before with no error, compiled by
 * graphql-jit, one query operation; no ledger, persisted document or APQ; an `Accept` a JSON answer
 * satisfies), decided before anything is counted or run. Every other request, a cached hit, and a
 * request the cost limit refuses go to the pipeline untouched, so nothing is counted or run twice.
 * The steps are the pipeline's own functions, in its order: request decisions, cost, the response
 * cache's lookup, the rate limit, collapse and compiled execution, error log, the cache's store, error
 * masking, Yoga's result processing and the wire encoding. The pipeline's adapter, Request/Response
 * objects and plugin hooks were most of an executed request's HTTP cost (bench/PHASES.md).
 */
export function createDirectPath(options: DirectPathOptions): FastPath {
  const yogaLogger = yogaLogging(options.services.logger);
  const steps: Steps = {
    ...options,
    log: errorLogger(options.services.logger),
    // Yoga's masking (app.ts `maskedErrors`): the original of a masked error is logged unless the error log wrote it.
    mask: (error) => {
      const masked = maskError(error, 'Unexpected error.', options.development) as GraphQLError;
      if (masked !== error) yogaLogger.error(error);
      return masked;
    },
  };
  const plans = createPlans(options);
  const direct: FastPath = (req, res, body) => {
    const plan = plans.ofBody(req, body);
    return plan ? answer(steps, plan, req, res) : false;
  };
  direct.fromBytes = (req, res, bytes) => {
    const plan = plans.ofBytes(req, bytes);
    return plan ? answer(steps, plan, req, res) : false;
  };
  return direct;
}

/** The options, with the error log and masking made once. */
interface Steps extends DirectPathOptions {
  log(result: ExecutionResult, context: Context): void;
  mask(error: GraphQLError): GraphQLError;
}

/**
 * Answers a planned request: false (nothing written or counted) when a step before execution leaves it
 * to the pipeline, else true once committed. Without a cached answer to look for, it commits in the
 * listener's turn: the caller is told at once, with no promise of its own to settle.
 */
function answer(options: Steps, plan: Plan, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const { request } = plan;
  const arrivedAt = Date.now();
  const deadline = requestDeadline(request.header(REQUEST_TIMEOUT_HEADER), options.deadline, performance.now());
  if (deadline instanceof GraphQLError) return false;
  const aborted = new AbortController();
  const requestId = acceptedRequestId(request.header(REQUEST_ID_HEADER));
  // The part of the Fetch Request the context and the steps read (headers, signal, its id): no Request is made.
  const standIn = { method: request.method, url: req.url, headers: { get: request.header }, signal: aborted.signal, [REQUEST_ID]: requestId } as unknown as Request;
  const params = { query: request.query, operationName: request.operationName, variables: request.variables };
  // The server context and Yoga's initial members in one object, which the per-request root completes.
  const initial: ServerContext & YogaInitialContext = { req, res, credentials: request.credentials, cacheControl: request.cacheControl, deadline, ledger: false, request: standIn, params, waitUntil };
  const context = Object.assign(initial, createRequestContext(initial, options.services)) as Context;
  const args: ExecutionArgs = { schema: options.schema, document: plan.document, operationName: request.operationName, variableValues: request.variables, contextValue: context };
  if (options.costRefusal(args)) return false;

  const cache = options.cache;
  const cached = cache && !request.cacheControl.noStore ? cache.keyOf(request.query, request.operationName, request.variables, request.credentials.subscriber) : null;
  const corsOrigin = options.cors && request.header('origin');
  const head: AnswerHead = {
    mediaType: request.mediaType,
    requestId,
    cacheControl: cache ? 'no-store' : null,
    cors: corsOrigin ? options.cors!(corsOrigin) : false,
    varyOrigin: options.cors !== undefined,
    method: request.method,
    header: request.header,
  };
  const step: Committed = { options, plan, context, args, cached, head, arrivedAt, aborted, res };
  if (!cached) return commit(step);
  return heldAnswer(cache!, cached, request).then((held) => !held && commit(step));
}

/** Nothing in the gateway hands work to `waitUntil`: what it is given settles on its own. */
function waitUntil(pending: Promise<unknown> | void): void {
  void pending?.catch(() => undefined);
}

/** What the committed part of a direct answer works with. */
interface Committed {
  options: Steps;
  plan: Plan;
  context: Context;
  args: ExecutionArgs;
  cached: { key: string; policy: CachePolicy } | null;
  /** The answer's head: `cacheControl` is `no-store` (with the cache on) until a kept answer's policy replaces it. */
  head: AnswerHead;
  arrivedAt: number;
  aborted: AbortController;
  res: ServerResponse;
}

/** From here the request is counted: whatever fails is answered here, never handed to the pipeline to run again. */
function commit(step: Committed): true {
  step.options.cache?.countExecuted(step.cached ? 'miss' : 'bypass');
  void execute(step);
  return true;
}

/** The rate limit, the collapsed execution, the error log, the cache's store, masking and the answer; settles, never rejects. */
async function execute(step: Committed): Promise<void> {
  const { options, plan, context, args, cached, head, aborted, res } = step;
  try {
    const cache = options.cache;
    const refused = options.rateLimit ? await options.rateLimit(context, plan.operation, () => context.alerts.identity()) : null;
    if (refused) {
      observe(step, refused, 0, await writeResult(res, refused, head, options.slots));
      return;
    }
    // A client that goes away cuts its execution short, as Yoga's request signal does.
    abortWhenClosed(res, aborted);
    let result: ExecutionResult;
    const startedAt = Date.now();
    try {
      const run = (execArgs: ExecutionArgs) => runCompiled(plan.compiled, execArgs.contextValue, execArgs.variableValues as Record<string, unknown> | undefined);
      // Begun here, not under the collapse's frames, and listed by it once begun (collapse-inflight.ts).
      const joined = options.collapse.join(args, context, run);
      result = (await (typeof joined === 'string' ? options.collapse.lead(args, joined, context, run(args)) : (joined ?? run(args)))) as ExecutionResult;
    } catch (error) {
      result = { errors: [error instanceof GraphQLError ? error : createGraphQLError((error as Error).message, { originalError: error as Error })] };
    }
    const executeMs = Date.now() - startedAt;
    options.log(result, context);
    const kept = cache ? cache.settle(cached, result, context) : false;
    if (result.errors?.length) result = { ...result, errors: result.errors.map((error) => options.mask(error)) };
    const policy = kept && cached ? cached.policy : null;
    if (policy) head.cacheControl = `${policy.scope === 'PUBLIC' ? 'public' : 'private'}, max-age=${Math.max(0, Math.floor(policy.ttlMs / 1000))}`;
    const status = writeResult(res, result, head, options.slots);
    // Most answers are written at once: their status is observed without another turn of the microtask queue.
    observe(step, result, executeMs, typeof status === 'number' ? status : await status);
  } catch (error) {
    await unexpected(step, error);
  }
}

/** The operation metrics of a written answer. */
function observe({ options, plan, arrivedAt, head }: Committed, result: ExecutionResult, executeMs: number, status: number): void {
  options.observe({ document: plan.document, operation: plan.operation, arrivedAt, executeMs, result, status, method: head.method });
}

/** A failure of the direct path's own: logged, and answered as the pipeline answers an unexpected error (or the socket closed, if the head went). */
async function unexpected({ options, head, res }: Committed, error: unknown): Promise<void> {
  try {
    options.services.logger.error({ err: error, requestId: head.requestId }, 'direct path: unexpected failure');
    if (res.headersSent) res.destroy();
    else await writeResult(res, { errors: [createGraphQLError('Unexpected error.', { extensions: { unexpected: true } })] }, { ...head, cacheControl: options.cache ? 'no-store' : null }, options.slots);
  } catch {
    res.destroy();
  }
}

/** Whether the response cache holds an answer the request may get: then the hit path or the pipeline answers it. */
async function heldAnswer(cache: ResponseCacheReader, cached: NonNullable<ReturnType<ResponseCacheReader['keyOf']>>, request: HitRequest): Promise<boolean> {
  const { noCache, maxAgeMs: asked } = request.cacheControl;
  const maxAgeMs = noCache ? 0 : asked;
  // An answer younger than any entry may be is executed (and stored), as the plugin does.
  if (maxAgeMs !== null && maxAgeMs < cached.policy.ttlMs) return false;
  return served(await cache.store.get(cached.key), cache.graceMs(cached.policy), maxAgeMs) !== null;
}
