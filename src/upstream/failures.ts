import { BrokenCircuitError } from 'cockatiel';
import { isDeadlineExceeded } from '../operation/index.js';
import { UpstreamError, type ServiceName } from './errors.js';
import { CallerAborted } from './transport/cancel.js';

/**
 * Failures below HTTP (no answer, or an answer cut short), and how each becomes an `UpstreamError`.
 * The ends a layer puts to a call are the layer's own: `CallTimedOut` (transport/timeout.ts),
 * `CallerAborted` (transport/cancel.ts), and the operation's `deadlineExceeded` (operation/).
 */

/** Ended by the operation (its client went away or its deadline passed), not by the upstream: says nothing of the upstream's health. */
export function endedByCaller(error: unknown): boolean {
  return error instanceof CallerAborted || isDeadlineExceeded(error);
}

// Errors raised before any response header arrived, where the request surely did not reach a handler
// (or the keep-alive socket was stale): safe to try a GET once more.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The request surely never reached a handler: a GET may be tried once more. */
export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && CONNECTION_CODES.has(code);
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect reports an AggregateError; its members carry the code.
  if (Array.isArray(errors)) return errors.map(errorCode).find((c) => c !== undefined);
  return undefined;
}

/** Every failure of the layer leaves it as an `UpstreamError`. */
export function toUpstreamError(service: ServiceName, error: unknown, status: number | undefined): UpstreamError {
  if (error instanceof UpstreamError) return error;
  // A failure while reading the body of an answer keeps that answer's status.
  const withStatus = status !== undefined ? { status } : {};
  if (error instanceof CallerAborted) {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code: 'ABORTED', retryable: false, ...withStatus });
  }
  if (error instanceof BrokenCircuitError) {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code: 'EOPENBREAKER', message: `${service} upstream circuit is open: failing fast` });
  }
  const code = errorCode(error);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code, retryable: false, ...withStatus });
  }
  return new UpstreamError({ service, kind: 'UNAVAILABLE', code: code ?? 'EUNKNOWN', ...withStatus });
}
