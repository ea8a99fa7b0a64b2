import CircuitBreaker from 'opossum';
import { Agent, request, type Dispatcher } from 'undici';
import { UpstreamError, badBody, type ServiceName, type UpstreamErrorKind } from './errors.js';
import { isObject } from './read.js';
import type { CallScope } from './scope.js';

export { UpstreamError, isUpstreamError, type ServiceName, type UpstreamErrorKind } from './errors.js';

// ---------------------------------------------------------------------------------------------
// The shared connection pool
// ---------------------------------------------------------------------------------------------

export interface AgentOptions {
  /** TCP (and TLS) connect deadline. Default 2 000 ms. */
  connectTimeoutMs?: number;
  /** Deadline for the response headers once the request is sent. Default 10 000 ms (the per-call deadline of each client is usually shorter). */
  headersTimeoutMs?: number;
  /** Deadline between two body chunks. Default 10 000 ms. */
  bodyTimeoutMs?: number;
  /** Idle keep-alive sockets are closed after this. Default 10 000 ms. */
  keepAliveTimeoutMs?: number;
  /** Sockets per origin. Default 64. */
  connections?: number;
  /** Largest accepted response body in bytes. Default 32 MiB. */
  maxResponseSize?: number;
}

/** One keep-alive pool shared by every upstream client; `close()` it on shutdown. */
export function createAgent(opts: AgentOptions = {}): Agent {
  return new Agent({
    connect: { timeout: opts.connectTimeoutMs ?? 2_000 },
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 10_000,
    connections: opts.connections ?? 64,
    maxResponseSize: opts.maxResponseSize ?? 32 * 1024 * 1024,
  });
}

// ---------------------------------------------------------------------------------------------
// The per-service client
// ---------------------------------------------------------------------------------------------

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

export type BreakerState = 'open' | 'halfOpen' | 'closed';

export interface BreakerOptions {
  /** Failure percentage in the rolling window above which the circuit opens. Default 50. */
  errorThresholdPercentage?: number;
  /** Calls in the window before the percentage is considered. Default 10. */
  volumeThreshold?: number;
  /** How long the circuit stays open before one trial call. Default 10 000 ms. */
  resetTimeoutMs?: number;
  /** Length of the rolling statistics window. Default 10 000 ms. */
  rollingCountTimeoutMs?: number;
}

export interface RetryOptions {
  /** Pause before the one retry; a random jitter of up to the same amount is added. Default 50 ms. */
  backoffMs?: number;
}

type HeaderValues = Record<string, string | undefined>;
export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type Query = Record<string, QueryValue>;

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
}

export interface GetOptions {
  query?: Query;
  headers?: HeaderValues;
  /** The operation the call is made for: its signal aborts the call, its budget counts it. */
  scope?: CallScope;
  /** Route template for metrics; defaults to the method and path. */
  route?: string;
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

/**
 * Builds a path from a template, encoding every interpolated value as one path segment:
 * ``path`/v0/assets/${id}/history` `` never lets an id add a segment or a query.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/** Query string from a record: undefined, null and empty lists are left out; lists become comma lists. */
export function buildQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(key, value.join(','));
    } else {
      params.set(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
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

const MAX_MESSAGE = 300;

class Deadline extends Error {
  readonly code = 'ETIMEDOUT';
}

class CallerAborted extends Error {
  readonly code = 'ABORTED';
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { service, agent, onRequest } = options;
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const prefix = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5_000;
  const retry = options.retry === false ? null : { backoffMs: options.retry?.backoffMs ?? 50 };
  const defaultHeaders = options.defaultHeaders ?? {};

  const breaker =
    options.breaker === false ? null : createBreaker(service, options.breaker ?? {}, options.onBreakerStateChange);

  async function call<T>(method: 'GET' | 'POST', p: string, opts: GetOptions & PostOptions): Promise<T> {
    opts.scope?.budget?.spend(service);
    const started = performance.now();
    const route = opts.route ?? `${method} ${p}`;
    const state = { attempts: 0, status: undefined as number | undefined };
    const run = () => execute<T>(method, p, opts, state);
    try {
      const result = breaker ? ((await breaker.fire(run)) as T) : await run();
      onRequest?.({ service, method, route, status: state.status, durationMs: performance.now() - started, attempts: state.attempts });
      return result;
    } catch (error) {
      const upstream = toUpstreamError(service, error, state.status);
      onRequest?.({
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

  async function execute<T>(
    method: 'GET' | 'POST',
    p: string,
    opts: GetOptions & PostOptions,
    state: { attempts: number; status: number | undefined },
  ): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Deadline(`deadline of ${timeoutMs} ms exceeded`)), timeoutMs);
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
          const code = errorCode(error);
          const canRetry =
            retry && method === 'GET' && state.attempts === 1 && !deadline.signal.aborted && code && CONNECTION_CODES.has(code);
          if (!canRetry) throw error;
          await sleep(retry.backoffMs + Math.random() * retry.backoffMs, deadline.signal);
        }
      }
      state.status = response.statusCode;
      return await readResponse<T>(service, method, response);
    } catch (error) {
      // The deadline or the caller's signal aborts undici with our own reason; anything else passes through.
      if (error instanceof Deadline || error instanceof CallerAborted) throw error;
      const reason: unknown = deadline.signal.reason;
      if (deadline.signal.aborted && (reason instanceof Deadline || reason instanceof CallerAborted)) throw reason;
      throw error;
    } finally {
      clearTimeout(timer);
      forget?.();
    }
  }

  return {
    service,
    get: (p, opts = {}) => call('GET', p, opts),
    post: (p, opts = {}) => call('POST', p, opts),
    close: () => breaker?.shutdown(),
  };
}

async function readResponse<T>(service: ServiceName, method: string, response: Dispatcher.ResponseData): Promise<T> {
  const { statusCode: status } = response;
  if (status >= 200 && status < 300) {
    const text = await response.body.text();
    if (text.trim() === '') {
      // The void POSTs answer `{}`; an empty body there is harmless. A read must carry a body.
      if (method === 'POST' || status === 204) return {} as T;
      throw badBody(service, 'empty', status);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badBody(service, 'not JSON', status);
    }
    if (!isObject(parsed)) throw badBody(service, 'not a JSON object', status);
    return parsed as T;
  }

  if (status < 400) {
    await response.body.dump();
    throw new UpstreamError({ service, kind: 'UNAVAILABLE', status, retryable: false });
  }

  const text = await response.body.text().catch(() => '');
  const payload = parseJsonObject(text);
  switch (status) {
    case 400:
      return fail({ kind: 'BAD_REQUEST', upstreamMessage: describe(payload?.['error']) });
    case 401:
      return fail({ kind: 'UNAUTHENTICATED' });
    case 403:
      return fail({ kind: 'FORBIDDEN' });
    case 404:
      return fail({ kind: 'NOT_FOUND' });
    case 408:
      return fail({ kind: 'UNAVAILABLE' });
    case 409:
      return fail({ kind: 'CONFLICT', upstreamMessage: describe(payload?.['message']) });
    case 422:
      return fail({ kind: 'UNPROCESSABLE', upstreamMessage: describe(payload?.['message']) });
    case 429:
      return fail({ kind: 'RATE_LIMITED', retryAfterSeconds: retryAfter(response.headers['retry-after']) });
    default:
      if (status >= 500) return fail({ kind: 'UNAVAILABLE' });
      return fail({ kind: 'BAD_REQUEST', upstreamMessage: describe(payload?.['error'] ?? payload?.['message']) });
  }

  function fail(init: { kind: UpstreamErrorKind; upstreamMessage?: string | undefined; retryAfterSeconds?: number | undefined }): never {
    throw new UpstreamError({
      service,
      status,
      kind: init.kind,
      ...(init.upstreamMessage !== undefined ? { upstreamMessage: init.upstreamMessage } : {}),
      ...(init.retryAfterSeconds !== undefined ? { retryAfterSeconds: init.retryAfterSeconds } : {}),
    });
  }
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The upstream's explanation as text: strings as sent, structured validation errors as compact JSON. */
function describe(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date. */
export function retryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect reports an AggregateError; its members carry the code.
  if (Array.isArray(errors)) return errors.map(errorCode).find((c) => c !== undefined);
  return undefined;
}

/** Every failure of the layer leaves it as an `UpstreamError`. */
function toUpstreamError(service: ServiceName, error: unknown, status: number | undefined): UpstreamError {
  if (error instanceof UpstreamError) return error;
  // A failure while reading the body of an answer keeps that answer's status.
  const withStatus = status !== undefined ? { status } : {};
  if (error instanceof CallerAborted) {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code: 'ABORTED', retryable: false, ...withStatus });
  }
  const code = errorCode(error);
  if (code === 'EOPENBREAKER') {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code, message: `${service} upstream circuit is open: failing fast` });
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return new UpstreamError({ service, kind: 'UNAVAILABLE', code, retryable: false, ...withStatus });
  }
  return new UpstreamError({ service, kind: 'UNAVAILABLE', code: code ?? 'EUNKNOWN', ...withStatus });
}

type Breaker = CircuitBreaker<[() => Promise<unknown>], unknown>;

function createBreaker(
  service: ServiceName,
  opts: BreakerOptions,
  onState: HttpClientOptions['onBreakerStateChange'],
): Breaker {
  const breaker: Breaker = new CircuitBreaker((run: () => Promise<unknown>) => run(), {
    name: service,
    // The call has its own deadline; the breaker only counts.
    timeout: false,
    errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
    volumeThreshold: opts.volumeThreshold ?? 10,
    resetTimeout: opts.resetTimeoutMs ?? 10_000,
    rollingCountTimeout: opts.rollingCountTimeoutMs ?? 10_000,
    // Only an unhealthy upstream counts: its 4xx answers (and the caller giving up) say nothing about that.
    // The library counts a filtered error as a success, though, and one success closes a half-open
    // breaker: a trial call its caller abandoned has not shown the upstream healthy, so it counts as failed.
    errorFilter: (error: unknown) => !countsAsFailure(error) && !(error instanceof CallerAborted && breaker.halfOpen),
  });
  if (onState) {
    breaker.on('open', () => onState(service, 'open'));
    breaker.on('halfOpen', () => onState(service, 'halfOpen'));
    breaker.on('close', () => onState(service, 'closed'));
  }
  return breaker;
}

function countsAsFailure(error: unknown): boolean {
  if (error instanceof CallerAborted) return false;
  if (error instanceof UpstreamError) return error.kind === 'UNAVAILABLE';
  return true;
}

/** For each caller's signal, the calls in flight that its abort ends. */
const callsBySignal = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `abort` when `signal` aborts, until the returned function is called. A request's calls share
 * its one signal, so it gets one listener for all of them: one per call would pass Node's limit of 10
 * per signal (MaxListenersExceededWarning) as soon as a request fans out.
 */
function whenAborted(signal: AbortSignal, abort: () => void): () => void {
  const calls = callsBySignal.get(signal) ?? listenTo(signal);
  calls.add(abort);
  return () => calls.delete(abort);
}

function listenTo(signal: AbortSignal): Set<() => void> {
  const calls = new Set<() => void>();
  signal.addEventListener('abort', () => calls.forEach((abort) => abort()), { once: true });
  callsBySignal.set(signal, calls);
  return calls;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
