import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors.js';
import { OperationDeadline } from '../upstream/deadline.js';

const HEADER = 'x-request-timeout-ms';

export interface RequestDeadlineOptions {
  /** The deadline when the client sends none (`REQUEST_TIMEOUT_DEFAULT_MS`). */
  defaultMs: number;
  /** The cap on the one it sends (`REQUEST_TIMEOUT_MAX_MS`). */
  maxMs: number;
}

const received = new WeakMap<Request, number>();
const deadlines = new WeakMap<Request, OperationDeadline>();

/** The deadline of the operation a request carries; undefined when the request did not come through `useRequestDeadline` (WebSocket). */
export function deadlineOf(request: Request): OperationDeadline | undefined {
  return deadlines.get(request);
}

/**
 * Gives each GraphQL request a deadline counted from its arrival: the client's `X-Request-Timeout-Ms`
 * (a whole number of milliseconds above 0, capped at `maxMs`), else `defaultMs`. Anything else in the
 * header is refused with HTTP 400 `BAD_USER_INPUT` before the operation runs. `createContext` puts the
 * deadline in the operation's `CallScope`, where every upstream call reads the time left.
 */
export function useRequestDeadline(options: RequestDeadlineOptions): Plugin {
  return {
    onRequest({ request }) {
      received.set(request, performance.now());
    },
    onParams({ request }) {
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
      deadlines.set(request, new OperationDeadline(ms, received.get(request)));
    },
  };
}
