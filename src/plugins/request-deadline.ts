import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../context.js';
import { gatewayError } from '../errors.js';
import { OperationDeadline } from '../operation/index.js';

export const REQUEST_TIMEOUT_HEADER = 'x-request-timeout-ms';

export interface RequestDeadlineOptions {
  /** The deadline when the client sends none (`REQUEST_TIMEOUT_DEFAULT_MS`). */
  defaultMs: number;
  /** The cap on the one it sends (`REQUEST_TIMEOUT_MAX_MS`). */
  maxMs: number;
}

/**
 * The deadline a request's `X-Request-Timeout-Ms` asks for, counted from `receivedAt`: a whole number
 * of milliseconds above 0, capped at `maxMs`, else `defaultMs` when it sends none. Anything else in the
 * header is the refusal returned instead (HTTP 400 `BAD_USER_INPUT`), thrown when the operation's
 * parameters are read, so a request that runs no operation is not refused for it.
 */
export function requestDeadline(sent: string | null, options: RequestDeadlineOptions, receivedAt: number): OperationDeadline | GraphQLError {
  if (sent === null) return new OperationDeadline(options.defaultMs, receivedAt);
  const value = sent.trim();
  if (!/^\d{1,15}$/.test(value) || Number(value) === 0) {
    return gatewayError('X-Request-Timeout-Ms must be a whole number of milliseconds above 0.', 'BAD_USER_INPUT', {
      field: 'X-Request-Timeout-Ms',
      http: { status: 400 },
    });
  }
  return new OperationDeadline(Math.min(Number(value), options.maxMs), receivedAt);
}

/**
 * Gives each GraphQL request a deadline counted from its arrival (`requestDeadline`), handed on in the
 * server context (`ServerContext.deadline`), where the per-request root puts it in the operation's
 * `CallScope` (request-context.ts). The gateway decides it with the other request decisions, in one
 * hook (plugins/request-decisions.ts); this plugin is the same decision alone, for a Yoga of its own.
 */
export function useRequestDeadline(options: RequestDeadlineOptions): Plugin<Record<string, unknown>, ServerContext> {
  const decided = new WeakMap<Request, OperationDeadline | GraphQLError>();
  return {
    onRequest({ request }) {
      decided.set(request, requestDeadline(request.headers.get(REQUEST_TIMEOUT_HEADER), options, performance.now()));
    },
    onParams({ request, context }) {
      const deadline = decided.get(request);
      // Thrown, not set as the result: a later onParams (the response cache's) would replace a result.
      if (deadline instanceof Error) throw deadline;
      if (deadline) context.deadline = deadline;
    },
  };
}
