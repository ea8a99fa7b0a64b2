import type { Plugin } from 'graphql-yoga';
import { REQUEST_ID_HEADER, requestIdOf } from '../request-id.js';

export { requestIdOf } from '../request-id.js';

/**
 * Gives every request an id, taken from `X-Request-Id` or generated, and echoes it in the response's
 * `X-Request-Id`, so a caller's report can be matched to the gateway's log lines (which carry it).
 */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(request));
    },
  };
}
