import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin, GraphQLParams } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import type { ResponseCacheTtls } from '../config.js';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey } from '../credentials.js';
import type { SubscriberCredentials } from '../upstream/index.js';
import { PUBLIC_OWNER, type ResponseCacheStore } from './store.js';
import type { CachePolicy } from './policy.js';
import { createDocumentPolicies } from './documents.js';
import { createResultWriter, served } from './held.js';
import { createRefresher, type RefreshOf, type RunRefresh } from './refresh.js';

export interface ResponseCacheOptions {
  /** Where results are kept (in process, or Redis across replicas). */
  store: ResponseCacheStore;
  /** TTL of each kind of data; a result lives as long as the shortest kind it holds. */
  ttlMs: Readonly<ResponseCacheTtls>;
  /** Distinct query documents whose cache policy is remembered. Default 1000. */
  maxDocuments?: number;
  /** Where `gateway_response_cache_requests_total` (by outcome: hit, miss, bypass) is registered. Default: none. */
  registry?: Registry;
  /** Requests whose answer is their own (they get the upstream ledger): neither served from nor stored in the cache. Default: none. */
  ownAnswer?: (context: ServerContext) => boolean;
  /** Whether a document text may be parsed (the gateway's document limits): one it refuses is not parsed here first. Default: all. */
  admissible?: (query: string) => boolean;
  /** How long past its TTL a public result is answered stale while it is refreshed (bounded by the client's `max-age`). Default 0: never. */
  graceMs?: number;
  /** The same for a caller's own result. Default 0: never. */
  privateGraceMs?: number;
  /** Runs a refresh request through the gateway (its answer is stored, not read); required for a grace period. */
  refresh?: RunRefresh;
  /** The `documentId` the client named the document by, which the trusted documents' plugin replaced by its text. Default: none. */
  namedDocumentId?: (params: GraphQLParams) => string | undefined;
}

/** What the cache decided for one HTTP request, read by every later hook. */
interface RequestState {
  /** `null`: not cached (a mutation, introspection, no document, the client's `no-store`, or its own answer). */
  policy: CachePolicy | null;
  /** The cache key, once built (cacheable requests only). */
  key?: string;
  /** Answered from the cache, or executed and kept: its answer carries the cache policy. */
  kept?: boolean;
  /** Answered from the cache. */
  hit?: boolean;
  /** Answered with a result this many milliseconds old (`Age`); set on hits. */
  ageMs?: number;
  /** The answer was past its TTL: refresh it once answered. */
  stale?: boolean;
  /** What a refresh sends again. */
  params?: Record<string, unknown>;
  serverContext: ServerContext;
}

/** What the fast path for hits (fast-path/hits.ts) reads of the cache the plugin keeps: the same policies, keys, store and counter. */
export interface ResponseCacheReader {
  /** The key and policy of a request's parameters for this caller, or null when the cache would not serve it. */
  keyOf(query: string, operationName: string | null | undefined, variables: unknown, caller: SubscriberCredentials | null): { key: string; policy: CachePolicy } | null;
  store: ResponseCacheStore;
  /** How long past its TTL an entry of this policy is answered stale while it is refreshed (0: never). */
  graceMs(policy: CachePolicy): number;
  /** Starts the refresh of a stale entry answered without the plugin, unless one of `key` is running (made only then). */
  refresh(key: string, make: () => Omit<RefreshOf, 'key'>): void;
  /** Counts a hit answered without the plugin (`gateway_response_cache_requests_total{outcome="hit"}`). */
  countHit(): void;
  /** Counts an executed answer given without the plugin: `miss` (cacheable) or `bypass`. */
  countExecuted(outcome: 'miss' | 'bypass'): void;
  /**
   * What the plugin does when an execution ends (the direct path calls it too): a caller whose credentials
   * the alerts service refused loses its entries; else a result without errors is stored under `key`.
   * True when the answer is one the cache keeps (it then carries the cache policy).
   */
  settle(cached: { key: string; policy: CachePolicy } | null, result: unknown, context: Pick<Context, 'credentials' | 'alerts'>, mutation?: boolean): boolean;
}

/**
 * A whole-result cache for queries: looked up as soon as the request's document is known (`onParams`:
 * a hit is neither parsed nor validated), stored when an execution ends without errors. Whether a
 * document is public or the caller's own is read from the types it selects (`policy.ts`): public
 * answers are shared by every caller, private ones keyed by a SHA-256 of the caller's credentials.
 * A mutation drops everything cached for its caller before it answers, and so does any request whose
 * credentials the alerts service refused (a revoked token: its answers end at once, stale copies too).
 *
 * Responses carry `Cache-Control` (`public` or `private` with the remaining `max-age`, `no-store` when
 * not cached); the wire encoding tags them and answers `304`s. A request's `Cache-Control: no-cache`
 * (what `fetch()` sends with `If-None-Match`), or a `max-age` shorter than the document's TTL, is
 * answered by an execution (never from an entry older than it allows) that is stored and keeps the
 * answer's own policy, so its validator can still be matched; `no-store` or the upstream ledger bypass
 * the cache. Documents selecting `freshness` are never cached (`live` in the policy). The `reader`
 * hands the same policies, keys and store to the fast path for hits at the HTTP listener (fast-path/hits.ts).
 */
export function createGatewayResponseCache(options: ResponseCacheOptions): { plugin: Plugin<Context>; reader: ResponseCacheReader } {
  const { store, ttlMs } = options;
  const states = new WeakMap<Request, RequestState>();
  const documents = createDocumentPolicies({ ttlMs, maxDocuments: options.maxDocuments ?? 1000, admissible: options.admissible ?? (() => true) });
  const write = createResultWriter(store);
  const refresher = options.refresh ? createRefresher(options.refresh) : null;
  const grace = (policy: CachePolicy) => (refresher ? ((policy.scope === 'PRIVATE' ? options.privateGraceMs : options.graceMs) ?? 0) : 0);
  const outcomes = options.registry
    ? new Counter({
        name: 'gateway_response_cache_requests_total',
        help: 'GraphQL requests by response cache outcome: hit, miss (answered by execution), bypass (not cacheable).',
        labelNames: ['outcome'],
        registers: [options.registry],
      })
    : null;

  const keyOf = (query: string, operationName: string | null | undefined, variables: unknown, caller: SubscriberCredentials | null) => {
    const document = documents.policyOf(query);
    const policy = document?.policy;
    // Without a caller, a private answer is not cached rather than keyed as public.
    if (!document || !policy || (policy.scope === 'PRIVATE' && !caller)) return null;
    const owner = policy.scope === 'PRIVATE' ? subscriberKey(caller!) : PUBLIC_OWNER;
    return { key: documents.keyOf(owner, document, query, operationName, variables), policy };
  };
  const settle: ResponseCacheReader['settle'] = (cached, result, context, mutation = false) => {
    const subscriber = context.credentials?.subscriber;
    // A token the alerts service refused reads nothing of its caller's again, from any replica's cache.
    if (subscriber && (mutation || context.alerts?.credentialsRefused)) {
      void store.invalidateOwner(subscriberKey(subscriber));
      return false;
    }
    if (!cached || !write(cached.key, result, cached.policy.ttlMs)) return false;
    refresher?.stored(cached.key);
    return true;
  };
  const reader: ResponseCacheReader = {
    keyOf,
    store,
    graceMs: grace,
    refresh: (key, make) => (refresher && !refresher.running(key) ? refresher.start({ key, ...make() }) : undefined),
    countHit: () => outcomes?.inc({ outcome: 'hit' }),
    countExecuted: (outcome) => outcomes?.inc({ outcome }),
    settle,
  };

  const plugin: Plugin<Context> = {
    onSchemaChange({ schema }: { schema: GraphQLSchema }) {
      documents.useSchema(schema);
    },
    onParams({ params, request, context, setResult }) {
      const serverContext = context as ServerContext;
      const cacheControl = serverContext.cacheControl;
      const bypass = (cacheControl?.noStore ?? false) || (options.ownAnswer?.(serverContext) ?? false);
      // The caller `useRequestDecisions` read once for this request.
      const cached = params.query && !bypass ? keyOf(params.query, params.operationName, params.variables, serverContext.credentials?.subscriber ?? null) : null;
      const state: RequestState = { policy: cached?.policy ?? null, serverContext };
      states.set(request, state);
      if (!cached) return;
      const { policy } = cached;
      state.key = cached.key;
      if (grace(policy) > 0) {
        // A document named by `documentId` is refreshed by it (refresh.ts): its text may be refused.
        const documentId = options.namedDocumentId?.(params);
        state.params = documentId ? { ...params, documentId } : (params as unknown as Record<string, unknown>);
      }
      // A refresh executes and stores; so does a request that asks for an answer younger than any entry may be.
      const maxAgeMs = cacheControl?.noCache ? 0 : (cacheControl?.maxAgeMs ?? null);
      if (serverContext.cacheRefresh || (maxAgeMs !== null && maxAgeMs < policy.ttlMs)) return;
      const answer = (held: ExecutionResult | null | undefined) => {
        const hit = served(held, grace(policy), maxAgeMs);
        if (!hit) return;
        Object.assign(state, { hit: true, kept: true, ageMs: hit.ageMs, stale: hit.stale });
        serverContext.servedFromCache = true;
        setResult(hit.result);
      };
      const found = store.get(state.key);
      if (found instanceof Promise) return found.then(answer);
      answer(found);
    },
    onExecute({ args }) {
      const context = args.contextValue;
      const state = context.request ? states.get(context.request) : undefined;
      const operation = state?.policy ? null : getOperationAST(args.document as DocumentNode, args.operationName as string | null | undefined);
      const mutation = operation?.operation === OperationTypeNode.MUTATION;
      const cached = state?.policy && state.key ? { key: state.key, policy: state.policy } : null;
      return {
        onExecuteDone: ({ result }) => {
          if (settle(cached, result, context, mutation) && state) state.kept = true;
        },
      };
    },
    onResponse({ request, response }) {
      const state = states.get(request);
      // Read here for the last time: it holds the request's parameters (for a refresh), which must not
      // live on for as long as anything still holds the request.
      states.delete(request);
      if (state) outcomes?.inc({ outcome: !state.policy ? 'bypass' : state.hit ? 'hit' : 'miss' });
      // A 304 has no body to describe; a stream (subscriptions) sets its own.
      if (!state || response.status === 304 || response.headers.has('cache-control')) return;
      if (!state.policy || !state.kept) {
        response.headers.set('cache-control', 'no-store');
        return;
      }
      const age = Math.floor((state.ageMs ?? 0) / 1000);
      const maxAge = Math.max(0, Math.floor(state.policy.ttlMs / 1000) - age);
      response.headers.set('cache-control', `${state.policy.scope === 'PUBLIC' ? 'public' : 'private'}, max-age=${maxAge}`);
      if (state.hit) response.headers.set('age', String(age));
      if (state.stale && state.params && state.key) refresher?.start({ key: state.key, request, params: state.params, serverContext: state.serverContext });
    },
  };
  return { plugin, reader };
}
