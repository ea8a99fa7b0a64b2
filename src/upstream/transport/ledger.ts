import type { ServiceName, UpstreamError, UpstreamErrorKind } from '../errors.js';
import { toUpstreamError } from '../failures.js';
import type { Layer, UpstreamCall } from './call.js';

/** What one upstream call looked like, for metrics and logs. Never carries headers, query values or bodies. */
export interface RequestInfo {
  service: ServiceName;
  method: 'GET' | 'POST';
  /** A route template such as `GET /v0/assets/{id}`: low cardinality, no ids. */
  route: string;
  /** HTTP status of the final answer; absent when none arrived. */
  status?: number;
  durationMs: number;
  /** Absent on success. */
  errorKind?: UpstreamErrorKind;
  /** Error code below HTTP (`ECONNREFUSED`, `EOPENBREAKER` ...). */
  errorCode?: string;
  /** Attempts made (2 when the connection-level retry happened). */
  attempts: number;
}

/**
 * Writes down every call it lets through, as its caller saw it (a wait on a shared call is its
 * caller's call): to `onRequest` (metrics, logs) and to the operation's ledger when it keeps one
 * (operation/ledger.ts). Every failure leaves it as the `UpstreamError` it wrote down (failures.ts).
 * The one step that waits for the caller's answer: the layers inside it hold what they need on the
 * call, let go here (`UpstreamCall.release`), rather than each awaiting the answer with a promise of its own.
 */
export function ledger(onRequest: ((info: RequestInfo) => void) | undefined): Layer {
  return (next) =>
    function written(call) {
      const started = performance.now();
      let sent: Promise<unknown>;
      try {
        sent = next(call);
      } catch (error) {
        sent = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return sent.then(
        (value) => {
          call.learn();
          call.release();
          if (onRequest || call.scope?.ledger) {
            const { service, method, route, status, attempts } = call;
            write(call, { service, method, route, status, durationMs: performance.now() - started, attempts });
          }
          return value;
        },
        (error: unknown) => {
          call.learn();
          call.release();
          const failure = toUpstreamError(call.service, error, call.status);
          if (onRequest || call.scope?.ledger) write(call, failed(call, failure, performance.now() - started));
          throw failure;
        },
      );
    };

  function write(call: UpstreamCall, info: RequestInfo): void {
    onRequest?.(info);
    call.scope?.ledger?.call(info);
  }
}

function failed(call: UpstreamCall, failure: UpstreamError, durationMs: number): RequestInfo {
  const { service, method, route, status, attempts } = call;
  return {
    service,
    method,
    route,
    ...(status !== undefined ? { status } : {}),
    durationMs,
    errorKind: failure.kind,
    ...(failure.code ? { errorCode: failure.code } : {}),
    attempts,
  };
}
