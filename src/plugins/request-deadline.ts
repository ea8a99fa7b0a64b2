import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../context.js';
import { gatewayError } from '../errors.js';
import { OperationDeadline } from '../operation/index.js';

const HEADER = 'x-request-timeout-ms';

export interface RequestDeadlineOptions {
  /** The deadline when the client sends none (`REQUEST_TIMEOUT_DEFAULT_MS`). */
  defaultMs: number;
  /** The cap on the one it sends (`REQUEST_TIMEOUT_MAX_MS`). */
  maxMs: number;
}

/** When each request arrived: the deadline counts from then. */
const received = new WeakMap<Request, number>();

/**
 * Gives each GraphQL request a deadline counted from its arrival: the client's `X-Request-Timeout-Ms`
 * (a whole number of milliseconds above 0, capped at `maxMs`), else `defaultMs`. Anything else in the
 * header is refused with HTTP 400 `BAD_USER_INPUT` before the operation runs. The deadline is handed
 * on in the server context (`ServerContext.deadline`), where the per-request root puts it in the
 * operation's `CallScope` (request-context.ts); every upstream call reads the time left from there.
 */
export function useRequestDeadline(options: RequestDeadlineOptions): Plugin<Record<string, unknown>, ServerContext> {
  return {
    onRequest({ request }) {
      received.set(request, performance.now());
    },
    onParams({ request, context }) {
      const sent = request.headers.get(HEADER);
      let ms = options.defaultMs;
      if (sent !== null) {
        const value = sent.trim();
        if (!/^\d{1,15}$/.test(value) || Number(value) === 0) {
          // Thrown, not set as the result: a later onParams (the response cache's) would replace a result.
          throw gatewayError('X-Request-Timeout-Ms must be a whole number of milliseconds above 0.', 'BAD_USER_INPUT', {
            field: 'X-Request-Timeout-Ms',
            http: { status: 400 },
          });
        }
        ms = Math.min(Number(value), options.maxMs);
      }
      (context).deadline = new OperationDeadline(ms, received.get(request));
    },
  };
}
