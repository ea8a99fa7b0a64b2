import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../context.js';
import { readCredentials } from '../credentials.js';

/**
 * Reads the caller's credentials from each request's headers once, into its server context, where
 * everything after reads the same parsed caller: the response cache (`onParams`), the rate limit, and
 * the context the operation runs with (request-context.ts). `onRequest` runs before any `onParams`
 * and before the context is built, so the order of the plugins does not matter.
 */
export function useCredentials(): Plugin<Record<string, unknown>, ServerContext> {
  return {
    onRequest({ request, serverContext }) {
      serverContext.credentials = readCredentials(request.headers);
    },
  };
}
