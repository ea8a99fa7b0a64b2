import type { Plugin } from 'graphql-yoga';
import { readCacheControl } from '../cache-control.js';
import type { Config } from '../config.js';
import type { ServerContext } from '../context.js';
import { ledgerAsked } from '../request-context.js';

/**
 * Reads the request headers that decide how an answer is made, once, into the server context: the
 * client's `Cache-Control` (read by the response cache, the collapse of identical work and the
 * operation's freshness bound) and whether it gets the upstream ledger. `onRequest` runs before any
 * `onParams` and before the context is built, so every later hook reads the same decision.
 */
export function useRequestDecisions(config: Pick<Config, 'debugLedger'>): Plugin<Record<string, unknown>, ServerContext> {
  return {
    onRequest({ request, serverContext }) {
      serverContext.cacheControl = readCacheControl(request.headers.get('cache-control'));
      serverContext.ledger = ledgerAsked(request, config);
    },
  };
}

/** Whether a request's answer is its own (it gets the upstream ledger): never shared by the collapse, never cached. */
export function getsOwnAnswer(context: ServerContext): boolean {
  return context.ledger === true;
}
