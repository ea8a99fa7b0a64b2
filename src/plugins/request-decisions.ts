import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { readCacheControl } from '../cache-control.js';
import type { Config } from '../config.js';
import type { ServerContext } from '../context.js';
import { readCredentials } from '../credentials.js';
import { ledgerAsked } from '../request-context.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../request-id.js';
import { readinessAnswer, type ReadinessOptions } from './readiness.js';
import { REQUEST_TIMEOUT_HEADER, requestDeadline, type RequestDeadlineOptions } from './request-deadline.js';
import { requestShapeRefusal } from './request-shape.js';
import { strictUrlParamsParser } from './url-params.js';

export interface RequestDecisionsOptions {
  config: Pick<Config, 'debugLedger'>;
  deadline: RequestDeadlineOptions;
  /** The readiness probe (`/ready` unless `endpoint` says otherwise). */
  readiness: ReadinessOptions;
}

/**
 * Everything the gateway decides about an HTTP request before its operation runs, each decision made
 * once, in as few hooks as the behaviour allows, and handed on in the server context (`PluginValues`),
 * where the response cache, the collapse of identical work, the rate limit and the per-request root
 * (request-context.ts) read it; none of them reads these headers again.
 *
 * - `onRequest`, before any `onParams` and before the context is built: the readiness probe's answer;
 *   the request id (`X-Request-Id` or a new one, echoed in the answer); the caller's credentials; the
 *   client's `Cache-Control`; whether it gets the upstream ledger; its deadline, counted from now.
 * - `onRequestParse`: GraphQL parameters in a GET's query string or a form-encoded body, strictly
 *   (plugins/url-params.ts).
 * - `onParams`: a refused deadline header, then parameters of a shape no later code should walk
 *   (plugins/request-shape.ts): thrown, not set as the result, which a later onParams would replace.
 */
export function useRequestDecisions(options: RequestDecisionsOptions): Plugin<Record<string, unknown>, ServerContext> {
  const { config } = options;
  const readyPath = options.readiness.endpoint ?? '/ready';
  // A refused deadline header waits here for the operation's parameters: a probe or a page is not refused for it.
  const refusedDeadline = new WeakMap<Request, GraphQLError>();
  return {
    onRequest(payload) {
      const { request, serverContext } = payload;
      if (payload.url.pathname === readyPath) return payload.endResponse(readinessAnswer(options.readiness, payload.fetchAPI));
      const { headers } = request;
      requestIdOf(request);
      serverContext.credentials = readCredentials(headers);
      serverContext.cacheControl = readCacheControl(headers.get('cache-control'));
      serverContext.ledger = ledgerAsked(request, config);
      const deadline = requestDeadline(headers.get(REQUEST_TIMEOUT_HEADER), options.deadline, performance.now());
      if (deadline instanceof Error) refusedDeadline.set(request, deadline);
      else serverContext.deadline = deadline;
    },
    onRequestParse({ request, setRequestParser }) {
      const parser = strictUrlParamsParser(request);
      if (parser) setRequestParser(parser);
    },
    onParams({ request, params }) {
      const refused = refusedDeadline.get(request) ?? requestShapeRefusal(params);
      if (refused) throw refused;
    },
    onResponse({ request, response }) {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(request));
    },
  };
}

/** Whether a request's answer is its own (it gets the upstream ledger): never shared by the collapse, never cached. */
export function getsOwnAnswer(context: ServerContext): boolean {
  return context.ledger === true;
}
