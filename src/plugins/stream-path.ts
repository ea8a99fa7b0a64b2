import type { Plugin } from 'graphql-yoga';

export const STREAM_PATH = '/graphql/stream';

export type RequestHandler = (request: Request, serverContext: Record<string, unknown>) => Response | Promise<Response>;

/**
 * `GET /graphql/stream`: a GET to the GraphQL endpoint answered as server-sent events whatever
 * the client's `Accept` says, for EventSource-style clients. POSTed subscriptions use `/graphql` with
 * `Accept: text/event-stream`. `handle` is the app itself: the request is handled afresh at the
 * endpoint's path, so every plugin (CORS, limits, metrics) sees an ordinary GraphQL request.
 */
export function useGraphQLStreamPath(graphqlEndpoint: string, handle: RequestHandler): Plugin {
  return {
    async onRequest(payload) {
      const { request, url, serverContext, fetchAPI } = payload;
      if (url.pathname !== STREAM_PATH) return;
      const endResponse = (response: Response) => payload.endResponse(response);
      if (request.method !== 'GET') {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ error: `use GET (or POST ${graphqlEndpoint} with Accept: text/event-stream)` }), {
            status: 405,
            headers: { allow: 'GET', 'content-type': 'application/json' },
          }),
        );
        return;
      }
      const target = new fetchAPI.URL(url.href);
      target.pathname = graphqlEndpoint;
      const headers = new fetchAPI.Headers(request.headers);
      headers.set('accept', 'text/event-stream');
      endResponse(await handle(new fetchAPI.Request(target.href, { method: 'GET', headers, signal: request.signal }), serverContext));
    },
  };
}
