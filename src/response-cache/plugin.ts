import { getOperationAST, OperationTypeNode, parse, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { hash, randomBytes } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { ResponseCacheTtls } from '../config.js';
import type { Context } from '../context.js';
import { readCacheControl } from '../cache-control.js';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NESTING, nestsDeeperThan } from '../plugins/document-limits.js';
import { subscriberKey } from '../credentials.js';
import { heldFreshness, PUBLIC_OWNER, resultBody, type ResponseCacheStore } from './store.js';
import { documentPolicy, type CachePolicy } from './policy.js';
import { WIRE_FORMS, type WireForms } from './etag.js';

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
  ownAnswer?: (request: Request) => boolean;
  /** How long past its TTL a result is answered stale while it is refreshed (bounded by the client's `max-age`). Default 0: never. */
  graceMs?: number;
  /** Runs a refresh request through the gateway (its answer is stored, not read); required for a grace period. */
  refresh?: (request: Request, serverContext: unknown) => Promise<Response> | Response;
}

/** What the cache decided for one HTTP request, read by every later hook. */
interface RequestState {
  /** `null`: not cached (a mutation, introspection, no document, or the client asked for a fresh answer). */
  policy: CachePolicy | null;
  /** `public`, or the hash of the caller's credentials when the document selects private data. */
  owner: string;
  /** Answered from the cache. */
  hit?: boolean;
  /** The cache key, once built (cacheable requests only). */
  key?: string;
  /** The client's `max-age`: no stale answer older than it. */
  maxAgeMs: number | null;
  /** A background refresh of a stale result: it executes and stores, never reads. */
  refresh: boolean;
  /** Answered with a result this many milliseconds old (`Age`); set on hits. */
  ageMs?: number;
  /** The answer was past its TTL: refresh it once answered. */
  stale?: boolean;
  /** What a refresh sends again. */
  params?: Record<string, unknown>;
  serverContext?: unknown;
}

/**
 * A whole-result cache for queries: looked up as soon as the request's document is known (`onParams`:
 * a hit is neither parsed nor validated), stored when an execution ends without errors. Whether a document is public or the
 * caller's own is read from the types it selects (`policy.ts`), so public answers are
 * shared by every caller and private ones are keyed by a SHA-256 of the caller's credentials, never
 * the credentials themselves. Results with errors are not cached. A mutation drops everything cached
 * for its caller before it answers. Responses carry `Cache-Control` (`public` or `private` with the
 * remaining `max-age`, `no-store` when not cached); their `ETag` and `304`s are etag.ts's.
 * `Cache-Control: no-cache` (or `no-store`) or `X-Gateway-Debug` on a request bypasses the cache, and
 * so does a `max-age=N` shorter than the document's TTL (a cached result may be older than N: the
 * request is executed, its shared copies bounded by N). Documents selecting `freshness` are never
 * cached (`live` data in the policy): a cached result would repeat freshness that is no longer true.
 *
 * It no longer sits on Yoga's response cache plugin: its envelop core rewrites every cached document to
 * select `__typename` on every selection and, on every stored miss, copies the whole result to take
 * those fields out again (deleting properties, which leaves the copies slow to serialize), to track
 * entities this gateway does not invalidate by; the policy already gives scope and TTL per document.
 */
/** Heap the remembered cache policies may hold: their documents' texts, two bytes a character, and the policy. */
const POLICY_CACHE_BYTES = 4 * 1024 * 1024;

/** Marks an answer served from the cache (the symbol Yoga's response cache plugin marks with, kept for its readers). */
const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');

/** Carries the process's refresh nonce on the gateway's own refresh requests. */
const REFRESH_HEADER = 'x-gateway-cache-refresh';

export function useGatewayResponseCache(options: ResponseCacheOptions): Plugin<Context> {
  const { store, ttlMs } = options;
  const states = new WeakMap<Request, RequestState>();
  // Bounded by the bytes of the texts it keys on (up to 64 KiB each), not only by their count.
  // Beside each policy, the hash of its document (made on its first cacheable request): a key is then a
  // hash of that hash, the operation name and the variables, not of the whole document every time.
  const policies = new LRUCache<string, { policy: CachePolicy | null; documentHash?: string }>({
    max: options.maxDocuments ?? 1000,
    maxSize: POLICY_CACHE_BYTES,
    sizeCalculation: (_policy, query) => 2 * query.length + 512,
  });
  let schema: GraphQLSchema | undefined;
  const outcomes = options.registry
    ? new Counter({
        name: 'gateway_response_cache_requests_total',
        help: 'GraphQL requests by response cache outcome: hit, miss (answered by execution), bypass (not cacheable).',
        labelNames: ['outcome'],
        registers: [options.registry],
      })
    : null;

  /** The document's remembered policy (and hash): one lookup a request, read again for its key. */
  const policyOf = (query: string): { policy: CachePolicy | null; documentHash?: string } | null => {
    let known = policies.get(query);
    if (!known) {
      // A document past the limits is refused at parse (plugins/document-limits.ts): it is neither parsed
      // here first nor remembered, so no document the gateway refuses can hold memory in this map.
      if (query.length > MAX_DOCUMENT_BYTES || nestsDeeperThan(query, MAX_DOCUMENT_NESTING)) return null;
      let policy: CachePolicy | null = null;
      try {
        policy = schema ? documentPolicy(schema, parse(query), ttlMs) : null;
      } catch {
        // Unparsable: validation answers it; nothing to cache.
      }
      policies.set(query, (known = { policy }));
    }
    return known;
  };

  const graceMs = options.refresh ? (options.graceMs ?? 0) : 0;
  // Keys being refreshed: one background execution each, whatever the number of stale answers meanwhile.
  const refreshing = new Set<string>();
  // Marks the gateway's own refresh requests; unguessable, and new in every process.
  const refreshNonce = randomBytes(16).toString('hex');

  /** A fresh result as a hit; a stale one within the grace period (and the client's `max-age`) too, to be refreshed; else a miss. */
  const served = (state: RequestState, result: ExecutionResult | null | undefined) => {
    if (!result) return undefined;
    const freshness = heldFreshness(result);
    const ageMs = freshness ? Math.max(0, Date.now() - freshness.storedAt) : 0;
    if (freshness && ageMs > freshness.ttlMs) {
      if (ageMs > freshness.ttlMs + graceMs || (state.maxAgeMs !== null && ageMs > state.maxAgeMs)) return undefined;
      state.stale = true;
    }
    state.ageMs = ageMs;
    const body = resultBody(result);
    // Every hit of one held entry shares its ETag and compressed bytes (made on its first hit).
    return { ...result, stringify: () => body, [WIRE_FORMS]: wireFormsOf(result) } as ExecutionResult;
  };

  /** `<owner>.<hash>`: the document's hash (kept beside its policy), the operation name and the variables. */
  const keyOf = (owner: string, document: { documentHash?: string }, query: string, operationName: string | null | undefined, variables: unknown): string => {
    const documentHash = (document.documentHash ??= sha256(query));
    return `${owner}.${sha256(`${documentHash}|${operationName ?? ''}|${JSON.stringify(variables ?? {})}`)}`;
  };

  // Results already stored, by their data: requests that shared one execution (collapse-inflight.ts)
  // each finish with a copy of one result, stored once.
  const stored = new WeakSet<object>();

  /** Stores an executed result without errors (incremental results are not cached), tagged for its answer. */
  const storeResult = (key: string, result: unknown, ttlMs: number) => {
    if (ttlMs <= 0 || typeof result !== 'object' || result === null || Symbol.asyncIterator in result) return;
    const executed = result as ExecutionResult;
    if (executed.errors?.length || (executed.data && stored.has(executed.data))) return;
    if (executed.data) stored.add(executed.data);
    // Yoga sends `extensions.http` as headers and leaves it out of the body: the ETag marks a stored
    // answer (wire-encoding.ts replaces it with a hash of the bytes), Last-Modified dates it.
    const extensions = ((executed as { extensions?: Record<string, unknown> }).extensions ??= {});
    const http = (extensions['http'] ??= {}) as { headers?: Record<string, string> };
    http.headers = { ...http.headers, ETag: key, 'Last-Modified': new Date().toUTCString() };
    // This miss is answered from the same string the store keeps (not enumerable: the result is not changed).
    Object.defineProperty(executed, 'stringify', { value: () => resultBody(executed), enumerable: false, configurable: true });
    refreshing.delete(key);
    void store.set(key, executed, ttlMs);
  };

  const refreshInBackground = (request: Request, state: RequestState) => {
    const key = state.key!;
    if (refreshing.has(key) || !state.params) return;
    refreshing.add(key);
    const headers = new Headers(request.headers);
    for (const name of ['if-none-match', 'if-modified-since', 'cache-control', 'content-length', 'accept-encoding']) headers.delete(name);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/graphql-response+json');
    headers.set(REFRESH_HEADER, refreshNonce);
    // A persisted document is sent again by its id: a refresh runs exactly what the client may run.
    const { query, ...rest } = state.params;
    const byId = rest['documentId'] != null || (rest['extensions'] as { persistedQuery?: unknown } | undefined)?.persistedQuery != null;
    const params = byId ? rest : { ...rest, query };
    const { serverContext } = state;
    // The parameters handed over parsed, as node-http.ts hands over a client's: a body stream would go
    // through Yoga's size limit (a stream pipeline per refresh) only to be parsed back into this object.
    const refreshRequest = new Request(request.url, { method: 'POST', headers });
    Object.defineProperty(refreshRequest, 'json', { value: () => Promise.resolve(params) });
    void (async () => {
      try {
        const response = await options.refresh!(refreshRequest, serverContext);
        await response.arrayBuffer();
      } catch {
        // Not refreshed: the stale result expires at the end of its grace period, and a request then executes.
      } finally {
        // Stored (set above) or not: a later stale answer may try again.
        refreshing.delete(key);
      }
    })();
  };

  return {
    onSchemaChange({ schema: next }: { schema: GraphQLSchema }) {
      if (next !== schema) policies.clear();
      schema = next;
    },
    onParams({ params, request, context, setResult }) {
      const query = params.query;
      const cacheControl = readCacheControl(request.headers.get('cache-control'));
      const bypass = cacheControl.noCache || cacheControl.noStore || (options.ownAnswer?.(request) ?? false);
      const document = query && !bypass ? policyOf(query) : null;
      let policy = document?.policy ?? null;
      // Cached results are at most `ttlMs` old: only a shorter bound could be missed by one.
      if (policy && cacheControl.maxAgeMs !== null && cacheControl.maxAgeMs < policy.ttlMs) policy = null;
      // The caller `useCredentials` read once for this request (the context holds the same); without
      // one, a private answer is not cached rather than keyed as public.
      const caller = (context as Partial<Context>).credentials;
      if (policy?.scope === 'PRIVATE' && !caller) policy = null;
      const credentials = policy?.scope === 'PRIVATE' ? caller!.subscriber : null;
      const owner = credentials ? subscriberKey(credentials) : PUBLIC_OWNER;
      const refresh = policy !== null && request.headers.get(REFRESH_HEADER) === refreshNonce;
      if (refresh) refreshRequests.add(request);
      const state: RequestState = {
        policy,
        owner,
        maxAgeMs: cacheControl.maxAgeMs,
        refresh,
        ...(policy && graceMs > 0 ? { params: params as unknown as Record<string, unknown>, serverContext: context } : {}),
      };
      states.set(request, state);
      if (!policy || !query || !document) return;
      state.key = keyOf(owner, document, query, params.operationName, params.variables);
      // A refresh executes and stores; it never reads.
      if (state.refresh) return;
      const found = store.get(state.key);
      const answer = (held: ExecutionResult | null | undefined) => {
        const hit = served(state, held);
        if (!hit) return;
        state.hit = true;
        setResult({ ...hit, [SERVED_FROM_CACHE]: true } as ExecutionResult);
      };
      if (found instanceof Promise) return found.then(answer);
      answer(found);
    },
    onExecute({ args }) {
      const context = args.contextValue as Partial<Context>;
      const state = context.request ? states.get(context.request) : undefined;
      if (state?.policy && state.key) {
        const { key, policy } = state;
        return { onExecuteDone: ({ result }) => storeResult(key, result, policy.ttlMs) };
      }
      const operation = getOperationAST(args.document as DocumentNode, args.operationName as string | null | undefined);
      const credentials = context.credentials?.subscriber;
      if (operation?.operation !== OperationTypeNode.MUTATION || !credentials) return;
      return { onExecuteDone: () => store.invalidateOwner(subscriberKey(credentials)) };
    },
    onResponse({ request, response }) {
      const state = states.get(request);
      // Read here for the last time: it holds the request's parameters and server context (for a
      // refresh), which must not live on for as long as anything still holds the request.
      states.delete(request);
      if (state) outcomes?.inc({ outcome: !state.policy ? 'bypass' : state.hit ? 'hit' : 'miss' });
      // A 304 has no body to describe; a stream (subscriptions) sets its own.
      if (!state || response.status === 304 || response.headers.has('cache-control')) return;
      if (!state.policy || !response.headers.has('etag')) {
        response.headers.set('cache-control', 'no-store');
        return;
      }
      const age = Math.floor((state.ageMs ?? 0) / 1000);
      const maxAge = Math.max(0, Math.floor(state.policy.ttlMs / 1000) - age);
      response.headers.set('cache-control', `${state.policy.scope === 'PUBLIC' ? 'public' : 'private'}, max-age=${maxAge}`);
      if (state.hit) response.headers.set('age', String(age));
      if (state.stale) refreshInBackground(request, state);
    },
  };
}

/** The wire forms held beside one stored result (not enumerable: never stored in Redis, never serialized). */
function wireFormsOf(result: ExecutionResult): WireForms {
  const held = result as ExecutionResult & { [WIRE_FORMS]?: WireForms };
  if (!held[WIRE_FORMS]) Object.defineProperty(held, WIRE_FORMS, { value: {}, enumerable: false, configurable: true });
  return held[WIRE_FORMS]!;
}

const refreshRequests = new WeakSet<Request>();

/** Whether a request is the response cache's own background refresh (the rate limit does not count it against the caller). */
export function isCacheRefresh(request: Request): boolean {
  return refreshRequests.has(request);
}

/** Whether the response cache served this result (it marks what it serves). */
export function servedFromCache(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as Record<symbol, unknown>)[SERVED_FROM_CACHE] === true;
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}
