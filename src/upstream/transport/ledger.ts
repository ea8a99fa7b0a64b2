import type { ServiceName, UpstreamError, UpstreamErrorKind } from '../errors.js';
import { toUpstreamError } from '../failures.js';
import type { Layer, Settles, UpstreamCall } from './call.js';
import { toError } from '../../inflight-waiter.js';

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
 * It takes the call's outcome before its caller does (`Written`): the layers inside hold what they
 * need on the call, let go here (`UpstreamCall.release`), with no promise or step of their own.
 */
export function ledger(onRequest: ((info: RequestInfo) => void) | undefined): Layer {
  return (next) =>
    function written(call) {
      const record = new Written(call, call.to, onRequest);
      call.to = record;
      try {
        next(call);
      } catch (error) {
        record.reject(toError(error));
      }
    };
}

/** A call's outcome on its way to its caller: written down first, once. */
class Written implements Settles {
  readonly #started = performance.now();
  #done = false;

  constructor(
    readonly call: UpstreamCall,
    readonly caller: Settles,
    readonly onRequest: ((info: RequestInfo) => void) | undefined,
  ) {}

  resolve(value: unknown): void {
    const call = this.#over();
    if (!call) return;
    if (this.onRequest || call.scope?.ledger) {
      const { service, method, route, status, attempts } = call;
      if (!this.#write({ service, method, route, status, durationMs: performance.now() - this.#started, attempts })) return;
    }
    const map = call.map as ((raw: unknown) => unknown) | undefined;
    if (map === undefined) return this.caller.resolve(value);
    // Its caller's reading of the answer, made here rather than in a step of its own after the answer's promise.
    let mapped: unknown;
    try {
      mapped = map(value);
    } catch (error) {
      return this.caller.reject(toError(error));
    }
    this.caller.resolve(mapped);
  }

  reject(error: Error): void {
    const call = this.#over();
    if (!call) return;
    const failure = toUpstreamError(call.service, error, call.status);
    if (this.onRequest || call.scope?.ledger) {
      if (!this.#write(failed(call, failure, performance.now() - this.#started))) return;
    }
    this.caller.reject(failure);
  }

  /** The call is over for its caller (undefined when it already was): what it holds is let go. */
  #over(): UpstreamCall | undefined {
    if (this.#done) return undefined;
    this.#done = true;
    const { call } = this;
    call.learn();
    call.release();
    return call;
  }

  /**
   * Writes `info` down; false when a hook threw, its error then being the caller's answer. This runs
   * inside the dispatch handler's callback, where a throw would reach undici and leave the caller waiting.
   */
  #write(info: RequestInfo): boolean {
    try {
      this.onRequest?.(info);
      this.call.scope?.ledger?.call(info);
      return true;
    } catch (error) {
      this.caller.reject(toError(error));
      return false;
    }
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
