import { useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { getOperationAST, OperationTypeNode, parse, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { hash, randomBytes } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { ResponseCacheTtls } from '../config.js';
import type { Context } from '../context.js';
import { readCacheControl } from '../cache-control.js';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NESTING, nestsDeeperThan } from './document-limits.js';
import { readCredentials, subscriberKey } from '../credentials.js';
import { heldFreshness, PUBLIC_OWNER, resultBody, type ResponseCacheStore } from '../stores/response-cache.js';
import { DATA_KINDS, documentPolicy, type CachePolicy } from './response-cache-policy.js';
import { WIRE_FORMS, type WireForms } from './wire-encoding.js';

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
  /** The clock (tests). */
  now?: () => number;
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
 * A whole-result cache for queries (Yoga's response cache). Whether a document is public or the
 * caller's own is read from the types it selects (`response-cache-policy.ts`), so public answers are
 * shared by every caller and private ones are keyed by a SHA-256 of the caller's credentials, never
 * the credentials themselves. Results with errors are not cached. A mutation drops everything cached
 * for its caller before it answers. Responses carry `Cache-Control` (`public` or `private` with the
 * remaining `max-age`, `no-store` when not cached); their `ETag` and `304`s are wire-encoding.ts's.
 * `Cache-Control: no-cache` (or `no-store`) or `X-Gateway-Debug` on a request bypasses the cache, and
 * so does a `max-age=N` shorter than the document's TTL (a cached result may be older than N: the
 * request is executed, its shared copies bounded by N). Documents selecting `freshness` are never
 * cached (`live` data in the policy): a cached result would repeat freshness that is no longer true.
 */
/** Heap the remembered cache policies may hold: their documents' texts, two bytes a character, and the policy. */
const POLICY_CACHE_BYTES = 4 * 1024 * 1024;

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

  const policyOf = (query: string): CachePolicy | null => {
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
    return known.policy;
  };

  const graceMs = options.refresh ? (options.graceMs ?? 0) : 0;
  const now = options.now ?? Date.now;
  const answered = answeredOnce(store);
  // The request whose key was just built: Yoga looks it up at once, in the same turn.
  let lookingUp: RequestState | null = null;
  // Keys being refreshed: one background execution each, whatever the number of stale answers meanwhile.
  const refreshing = new Set<string>();
  // Marks the gateway's own refresh requests; unguessable, and new in every process.
  const refreshNonce = randomBytes(16).toString('hex');

  /** A fresh result as a hit; a stale one within the grace period (and the client's `max-age`) too, to be refreshed; else a miss. */
  const served = (state: RequestState, result: ExecutionResult | null | undefined) => {
    if (!result) return undefined;
    const freshness = heldFreshness(result);
    const ageMs = freshness ? Math.max(0, now() - freshness.storedAt) : 0;
    if (freshness && ageMs > freshness.ttlMs) {
      if (ageMs > freshness.ttlMs + graceMs || (state.maxAgeMs !== null && ageMs > state.maxAgeMs)) return undefined;
      state.stale = true;
    }
    state.ageMs = ageMs;
    return answered.get(result);
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
    const body = JSON.stringify(byId ? rest : { ...rest, query });
    void (async () => {
      try {
        const response = await options.refresh!(new Request(request.url, { method: 'POST', headers, body }), state.serverContext);
        await response.arrayBuffer();
      } catch {
        // Not refreshed: the stale result expires at the end of its grace period, and a request then executes.
      } finally {
        // Stored (set above) or not: a later stale answer may try again.
        refreshing.delete(key);
      }
    })();
  };

  const privateTypes = Object.fromEntries(
    Object.entries(DATA_KINDS)
      .filter(([, kind]) => kind === 'private')
      .map(([type]) => [type, 'PRIVATE' as const]),
  );

  return {
    onSchemaChange({ schema: next }: { schema: GraphQLSchema }) {
      if (next !== schema) policies.clear();
      schema = next;
    },
    onPluginInit({ addPlugin }) {
      // Runs before the cache's own lookup (plugins added here follow this one's onParams).
      addPlugin({
        onParams({ params, request, context }) {
          const query = params.query;
          const cacheControl = readCacheControl(request.headers.get('cache-control'));
          const bypass = cacheControl.noCache || cacheControl.noStore || (options.ownAnswer?.(request) ?? false);
          let policy = query && !bypass ? policyOf(query) : null;
          // Cached results are at most `ttlMs` old: only a shorter bound could be missed by one.
          if (policy && cacheControl.maxAgeMs !== null && cacheControl.maxAgeMs < policy.ttlMs) policy = null;
          const credentials = policy?.scope === 'PRIVATE' ? readCredentials(request.headers).subscriber : null;
          states.set(request, {
            policy,
            owner: credentials ? subscriberKey(credentials) : PUBLIC_OWNER,
            maxAgeMs: cacheControl.maxAgeMs,
            refresh: policy !== null && request.headers.get(REFRESH_HEADER) === refreshNonce && Boolean(refreshRequests.add(request)),
            ...(policy && graceMs > 0 ? { params: params as unknown as Record<string, unknown>, serverContext: context } : {}),
          });
        },
      });
      addPlugin(
        // The cache plugin is typed for Yoga's initial context; this one's extends it.
        useResponseCache<Context>({
          cache: {
            // Yoga looks a key up right after building it (below), then envelop once more as the operation
            // executes: that second lookup repeats the first (a miss) and answers nothing.
            get(key) {
              const state = lookingUp;
              lookingUp = null;
              if (!state || state.key !== key || state.refresh) return undefined;
              const found = store.get(key);
              return found instanceof Promise ? found.then((result) => served(state, result)) : served(state, found);
            },
            set: (key, result, entities, ttl) => {
              refreshing.delete(key);
              return answered.set(key, result, entities, ttl);
            },
            invalidate: (entities) => store.invalidate(entities),
          },
          // Before the document is read the plugin would answer `If-None-Match` by looking the tag up as a
          // cache key (any cached key, any caller's, for any query): never. Conditional requests are
          // answered against this request's own answer (wire-encoding.ts).
          enabled: (request) => (request ? states.get(request)?.policy != null : false),
          session: (request) => {
            const owner = states.get(request)?.owner;
            return owner && owner !== PUBLIC_OWNER ? owner : null;
          },
          buildResponseCacheKey: ({ documentString, operationName, variableValues, request }) => {
            const state = states.get(request);
            const known = policies.get(documentString);
            const documentHash = known ? (known.documentHash ??= sha256(documentString)) : sha256(documentString);
            const key = `${state?.owner ?? PUBLIC_OWNER}.${sha256(`${documentHash}|${operationName ?? ''}|${JSON.stringify(variableValues ?? {})}`)}`;
            if (state?.policy) lookingUp = Object.assign(state, { key });
            return key;
          },
          onTtl: ({ ttl, context }) => Math.min(ttl, states.get((context as Context).request)?.policy?.ttlMs ?? 0),
          // A private type in a result cached for no one is skipped: a second guard behind the document's policy.
          scopePerSchemaCoordinate: privateTypes,
          // A caller's mutation drops that caller's results (below); entities are not tracked.
          invalidateViaMutation: false,
          idFields: [],
          includeExtensionMetadata: false,
        }) as Plugin<Context>,
      );
    },
    onExecute({ args }) {
      const operation = getOperationAST(args.document as DocumentNode, args.operationName as string | null | undefined);
      const credentials = (args.contextValue as Partial<Context>).credentials?.subscriber;
      if (operation?.operation !== OperationTypeNode.MUTATION || !credentials) return;
      return { onExecuteDone: () => store.invalidateOwner(subscriberKey(credentials)) };
    },
    onResultProcess({ request, result }) {
      const state = states.get(request);
      if (state && servedFromCache(result)) state.hit = true;
    },
    onResponse({ request, response }) {
      const state = states.get(request);
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

/**
 * The store, with each result it holds serialized once rather than on every answer: Yoga answers
 * with a result's own `stringify` when it has one. A result just executed and stored is answered
 * from the same string its size was measured with; a cached one from the string of its first answer.
 * (Redis hands out a new object per read: serialized once per read, as before.)
 */
function answeredOnce(store: ResponseCacheStore) {
  return {
    get(result: ExecutionResult): ExecutionResult {
      const body = resultBody(result);
      // Every hit of one held entry shares its ETag and compressed bytes (made on its first hit).
      return { ...result, stringify: () => body, [WIRE_FORMS]: wireFormsOf(result) } as ExecutionResult;
    },
    set(key: string, result: ExecutionResult, entities: Parameters<Cache['set']>[2], ttl: number) {
      // Not enumerable: the stored result is not changed, only answered from the string measured.
      Object.defineProperty(result, 'stringify', { value: () => resultBody(result), enumerable: false, configurable: true });
      return store.set(key, result, entities, ttl);
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

/** Whether Yoga's response cache served this result (it marks what it serves). */
export function servedFromCache(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as Record<symbol, unknown>)[Symbol.for('servedFromResponseCache')] === true;
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}
