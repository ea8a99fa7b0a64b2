import type { ServerContext } from '../context.js';

/** Runs a refresh request through the gateway (its answer is stored, not read). */
export type RunRefresh = (request: Request, serverContext: ServerContext) => Promise<Response> | Response;

/** What a refresh sends again: the stale request's parameters and the node request it came on (its client address). */
export interface RefreshOf {
  key: string;
  /** The stale request's URL and headers (a Fetch API request, or the node request's headers as they came). */
  request: { url: string; headers: HeadersInit };
  params: Record<string, unknown>;
  serverContext: ServerContext;
}

/** Request headers a refresh does not send again: it is a plain POST of the same operation, never conditional. */
const DROPPED_HEADERS = ['if-none-match', 'if-modified-since', 'cache-control', 'content-length', 'accept-encoding'];

/**
 * Refreshes stale results in the background: one execution per key, whatever the number of stale
 * answers meanwhile. The refresh runs the same operation through the whole gateway with the caller's
 * headers, in a server context of its own marked `cacheRefresh` (a client cannot set that: only the
 * server context the HTTP server makes reaches Yoga), so the rate limit does not count it again and the
 * alerts source verifies the caller's token afresh.
 */
export function createRefresher(run: RunRefresh) {
  const refreshing = new Set<string>();

  return {
    /** A result under `key` was stored: a later stale answer may start another refresh. */
    stored(key: string): void {
      refreshing.delete(key);
    },

    /** Whether a refresh of `key` is running (a later stale answer starts none). */
    running(key: string): boolean {
      return refreshing.has(key);
    },

    start({ key, request, params, serverContext }: RefreshOf): void {
      if (refreshing.has(key)) return;
      refreshing.add(key);
      const headers = new Headers(request.headers);
      for (const name of DROPPED_HEADERS) headers.delete(name);
      headers.set('content-type', 'application/json');
      headers.set('accept', 'application/graphql-response+json');
      // A persisted document is sent again by its id: a refresh runs exactly what the client may run.
      const { query, ...rest } = params;
      const byId = rest['documentId'] != null || (rest['extensions'] as { persistedQuery?: unknown } | undefined)?.persistedQuery != null;
      const sent = byId ? rest : { ...rest, query };
      // The parameters handed over parsed, as node-http.ts hands over a client's: a body stream would go
      // through Yoga's size limit only to be parsed back into this object.
      const refreshRequest = new Request(request.url, { method: 'POST', headers });
      Object.defineProperty(refreshRequest, 'json', { value: () => Promise.resolve(sent) });
      // Only the node request (the client's address) is kept: never its response, which has been answered.
      const context: ServerContext = { cacheRefresh: true, ...(serverContext['req'] ? { req: serverContext['req'] } : {}) };
      void (async () => {
        try {
          const response = await run(refreshRequest, context);
          await response.arrayBuffer();
        } catch {
          // Not refreshed: the stale result expires at the end of its grace period, and a request then executes.
        } finally {
          refreshing.delete(key);
        }
      })();
    },
  };
}
