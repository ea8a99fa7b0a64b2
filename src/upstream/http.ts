import { hash } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { sleep, whenAborted } from './abort.js';
import { DEFAULT_BODY_LIMIT, ROUTE_BODY_LIMITS, type InFlightBytes } from './body.js';
import { createBreaker, type BreakerOptions, type BreakerState } from './breaker.js';
import type { ServiceName, UpstreamErrorKind } from './errors.js';
import { deadlineExceeded } from './deadline.js';
import { CallerAborted, Deadline, OutOfTime, isConnectionFailure, toUpstreamError } from './failures.js';
import type { CallScope } from './scope.js';
import { readResponse } from './status.js';
import { buildQuery, type Query } from './url.js';

/**
 * The per-service HTTP client: one call is the breaker around a deadline around one GET retry on a
 * connection failure. Each concern has its file: the pool (agent.ts), paths and queries (url.ts),
 * the caller's abort (abort.ts), failures below HTTP (failures.ts), statuses (status.ts), the
 * breaker (breaker.ts).
 */

export { createAgent, type AgentOptions } from './agent.js';
export type { BreakerOptions, BreakerState } from './breaker.js';
export { UpstreamError, isUpstreamError, type ServiceName, type UpstreamErrorKind } from './errors.js';
export { retryAfter } from './status.js';
export { buildQuery, path, type Query, type QueryValue } from './url.js';

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

export interface RetryOptions {
  /** Pause before the one retry; a random jitter of up to the same amount is added. Default 50 ms. */
  backoffMs?: number;
}

type HeaderValues = Record<string, string | undefined>;

interface CallState {
  attempts: number;
  status: number | undefined;
}

/** One GET in flight that several callers wait on. */
interface SharedCall {
  answer: Promise<unknown>;
  state: CallState;
  /** Aborts the call once every caller waiting on it has gone (its abort, or its operation out of time). */
  controller: AbortController;
  waiters: number;
}

/**
 * Waits on a shared call as one caller: its operation's deadline and its signal end its wait (with the
 * errors a call of its own would have ended with), not the call, unless it was the last one waiting.
 */
function waitFor(call: SharedCall, scope: CallScope | undefined): Promise<unknown> {
  call.waiters += 1;
  return new Promise((resolve, reject) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let forget: (() => void) | undefined;
    const settle = () => {
      done = true;
      clearTimeout(timer);
      forget?.();
      call.waiters -= 1;
    };
    const leave = (error: Error) => {
      if (done) return;
      settle();
      if (call.waiters === 0) call.controller.abort(error);
      reject(error);
    };
    const left = scope?.deadline?.remainingMs() ?? Infinity;
    if (Number.isFinite(left)) timer = setTimeout(() => leave(new OutOfTime('the operation ran out of time')), Math.max(0, left));
    if (scope?.signal?.aborted) return leave(new CallerAborted('aborted by the caller'));
    if (scope?.signal) forget = whenAborted(scope.signal, () => leave(new CallerAborted('aborted by the caller')));
    call.answer.then(
      (value) => {
        if (done) return;
        settle();
        resolve(value);
      },
      (error: unknown) => {
        if (done) return;
        settle();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export interface HttpClientOptions {
  service: ServiceName;
  /** Scheme, host, port and an optional path prefix: `http://127.0.0.1:7001/markets`. */
  baseUrl: string;
  agent: Dispatcher;
  /** Sent on every call (e.g. the gateway's own `X-Service-Client-Key`); undefined values are left out. */
  defaultHeaders?: HeaderValues;
  /** Deadline of one call, retry included. Default 5 000 ms. */
  timeoutMs?: number;
  /** `false` disables the circuit breaker (tests). */
  breaker?: BreakerOptions | false;
  /** `false` disables the connection-level retry of GETs. */
  retry?: RetryOptions | false;
  onRequest?: (info: RequestInfo) => void;
  onBreakerStateChange?: (service: ServiceName, state: BreakerState) => void;
  /** The process-wide budget of upstream body bytes being read at once (body.ts); absent: none. */
  inFlight?: InFlightBytes;
  /** `false`: identical GETs in flight are not shared (each makes its own call). */
  shareGets?: boolean;
}

export interface GetOptions {
  query?: Query;
  headers?: HeaderValues;
  /** The operation the call is made for: its signal aborts the call, its budget counts it. */
  scope?: CallScope;
  /** Route template for metrics; defaults to the method and path. */
  route?: string;
  /** The largest body this call accepts; default the route's (`ROUTE_BODY_LIMITS`), else `DEFAULT_BODY_LIMIT`. */
  maxBytes?: number;
  /** Learns the size of the answer's body. */
  onBytes?: (bytes: number) => void;
}

export interface PostOptions {
  /** Serialised as JSON; omitted = no body. */
  body?: unknown;
  headers?: HeaderValues;
  scope?: CallScope;
  route?: string;
}

export interface HttpClient {
  readonly service: ServiceName;
  /** Resolves the parsed JSON body of a 2xx answer; anything else rejects with an `UpstreamError`. */
  get<T = unknown>(path: string, opts?: GetOptions): Promise<T>;
  post<T = unknown>(path: string, opts?: PostOptions): Promise<T>;
  /** Stops the breaker's timers. The agent is shared and closed by its owner. */
  close(): void;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { service, agent, onRequest } = options;
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const prefix = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5_000;
  const retry = options.retry === false ? null : { backoffMs: options.retry?.backoffMs ?? 50 };
  const defaultHeaders = options.defaultHeaders ?? {};

  const onBreakerState = options.onBreakerStateChange;
  const breaker =
    options.breaker === false ? null : createBreaker(options.breaker ?? {}, onBreakerState && ((state) => onBreakerState(service, state)));

  // Identical GETs in flight (same path, query, headers and body cap): one call, its answer shared.
  const shared = new Map<string, SharedCall>();

  /** The shared call for this GET, started if none is in flight; each caller waits on it with its own deadline and signal. */
  function sharedGet<T>(key: string, p: string, opts: GetOptions): { state: CallState; answer: Promise<T> } {
    let call = shared.get(key);
    if (!call) {
      const controller = new AbortController();
      const state: CallState = { attempts: 0, status: undefined };
      // The call itself answers to no one caller: its own timeout, and the abort of its last waiter.
      const own = { ...opts, scope: { signal: controller.signal } } as GetOptions;
      const run = () => execute<T>('GET', p, own, state);
      // Inside the breaker once, however many wait on it.
      const entry: SharedCall = { answer: guarded(run), state, controller, waiters: 0 };
      const forget = () => {
        if (shared.get(key) === entry) shared.delete(key);
      };
      entry.answer.then(forget, forget);
      shared.set(key, (call = entry));
    }
    return { state: call.state, answer: waitFor(call, opts.scope) as Promise<T> };
  }

  /** Runs inside the breaker, when there is one. */
  const guarded = <T>(run: () => Promise<T>): Promise<T> => (breaker ? breaker.run(run) : run());

  /**
   * The call's answer and what it looked like: a GET joins the identical one in flight (or starts it),
   * except one whose body size is reported to its caller (a listing's bytes); anything else is its own.
   */
  function dispatch<T>(method: 'GET' | 'POST', p: string, opts: GetOptions & PostOptions): { state: CallState; answer: Promise<T> } {
    if (method === 'GET' && options.shareGets !== false && !opts.onBytes) return sharedGet<T>(sharedKey(p, opts), p, opts);
    const state: CallState = { attempts: 0, status: undefined };
    return { state, answer: guarded(() => execute<T>(method, p, opts, state)) };
  }

  async function call<T>(method: 'GET' | 'POST', p: string, opts: GetOptions & PostOptions): Promise<T> {
    // No time left: no call (and none counted) that could only be cut short at once.
    if (opts.scope?.deadline && opts.scope.deadline.remainingMs() <= 0) throw deadlineExceeded(service);
    opts.scope?.budget?.spend(service);
    const started = performance.now();
    const route = opts.route ?? `${method} ${p}`;
    const { state, answer } = dispatch<T>(method, p, opts);
    const report = (info: RequestInfo) => {
      onRequest?.(info);
      opts.scope?.ledger?.call(info);
    };
    try {
      const result = await answer;
      report({ service, method, route, status: state.status, durationMs: performance.now() - started, attempts: state.attempts });
      return result;
    } catch (error) {
      const upstream = toUpstreamError(service, error, state.status);
      report({
        service,
        method,
        route,
        ...(state.status !== undefined ? { status: state.status } : {}),
        durationMs: performance.now() - started,
        errorKind: upstream.kind,
        ...(upstream.code ? { errorCode: upstream.code } : {}),
        attempts: state.attempts,
      });
      throw upstream;
    }
  }

  async function execute<T>(method: 'GET' | 'POST', p: string, opts: GetOptions & PostOptions, state: CallState): Promise<T> {
    const deadline = new AbortController();
    // The call's own deadline, or the time its operation has left when that is shorter.
    const left = opts.scope?.deadline?.remainingMs() ?? Infinity;
    const timer =
      left < timeoutMs
        ? setTimeout(() => deadline.abort(new OutOfTime('the operation ran out of time')), left)
        : setTimeout(() => deadline.abort(new Deadline(`deadline of ${timeoutMs} ms exceeded`)), timeoutMs);
    const onCallerAbort = () => deadline.abort(new CallerAborted('aborted by the caller'));
    let forget: (() => void) | undefined;
    const signal = opts.scope?.signal;
    if (signal?.aborted) onCallerAbort();
    else if (signal) forget = whenAborted(signal, onCallerAbort);

    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of Object.entries({ ...defaultHeaders, ...opts.headers })) {
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
    let body: string | undefined;
    if (method === 'POST' && opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const url = `${origin}${prefix}${p}${buildQuery(opts.query)}`;

    try {
      let response: Dispatcher.ResponseData;
      for (;;) {
        state.attempts += 1;
        try {
          response = await request(url, { dispatcher: agent, method, headers, body, signal: deadline.signal });
          break;
        } catch (error) {
          const canRetry = retry && method === 'GET' && state.attempts === 1 && !deadline.signal.aborted && isConnectionFailure(error);
          if (!canRetry) throw error;
          await sleep(retry.backoffMs + Math.random() * retry.backoffMs, deadline.signal);
        }
      }
      state.status = response.statusCode;
      const maxBytes = opts.maxBytes ?? ROUTE_BODY_LIMITS[opts.route ?? ''] ?? DEFAULT_BODY_LIMIT;
      return await readResponse<T>(service, method, response, { maxBytes, inFlight: options.inFlight }, opts.onBytes);
    } catch (error) {
      // The deadline or the caller's signal aborts undici with our own reason; anything else passes through.
      if (error instanceof Deadline || error instanceof CallerAborted || error instanceof OutOfTime) throw error;
      const reason: unknown = deadline.signal.reason;
      if (deadline.signal.aborted && (reason instanceof Deadline || reason instanceof CallerAborted || reason instanceof OutOfTime)) throw reason;
      throw error;
    } finally {
      clearTimeout(timer);
      forget?.();
    }
  }

  function sharedKey(p: string, opts: GetOptions): string {
    const headers = opts.headers ? Object.entries(opts.headers).filter(([, value]) => value !== undefined) : [];
    // Credentials are keyed by their hash, never held as they are.
    const who = headers.length ? hash('sha256', JSON.stringify(headers), 'base64url') : '';
    return `${p}${buildQuery(opts.query)}\n${opts.route ?? ''}\n${opts.maxBytes ?? ''}\n${who}`;
  }

  return {
    service,
    get: (p, opts = {}) => call('GET', p, opts),
    post: (p, opts = {}) => call('POST', p, opts),
    close: () => breaker?.close(),
  };
}
