import type { GraphQLError } from 'graphql';
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
