import type { Dispatcher } from 'undici';
import { DEFAULT_BODY_LIMIT, ROUTE_BODY_LIMITS, type InFlightBytes } from './body.js';
import type { ServiceName } from './errors.js';
import type { CallScope } from '../operation/index.js';
import { budget } from './transport/budget.js';
import { createBreaker, guardedBy, type BreakerOptions, type BreakerState } from './transport/breaker.js';
import { UpstreamCall, compose } from './transport/call.js';
import { cancel } from './transport/cancel.js';
import { deadline } from './transport/deadline.js';
import { DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION, lanes } from './transport/lanes.js';
import { ledger, type RequestInfo } from './transport/ledger.js';
import { retry, type RetryOptions } from './transport/retry.js';
import { createSend } from './transport/send.js';
import { share } from './transport/share.js';
import { DEFAULT_TIMEOUT_MS, timeout } from './transport/timeout.js';
import { buildQuery, type Query } from './url.js';
import { toError } from '../inflight-waiter.js';

/**
 * The per-service HTTP client: each call passes through the transport layers of transport/, one
 * concern per file, composed once per client around the one undici dispatcher (transport/send.ts).
 * Tracing is no layer: the undici instrumentation (src/tracing.ts) spans every dispatch through
 * undici's diagnostics channels. The pool is agent.ts's; paths and queries url.ts's.
 */

export { createAgent, type AgentOptions } from './agent.js';
export type { BreakerOptions, BreakerState } from './transport/breaker.js';
export type { RequestInfo } from './transport/ledger.js';
export type { RetryOptions } from './transport/retry.js';
export { DEFAULT_TIMEOUT_MS } from './transport/timeout.js';
export { UpstreamError, isUpstreamError, type ServiceName, type UpstreamErrorKind } from './errors.js';
export { retryAfter } from './status.js';
export { buildQuery, path, type Query, type QueryValue } from './url.js';

type HeaderValues = Record<string, string | undefined>;

export interface HttpClientOptions {
  service: ServiceName;
  /** Scheme, host, port and an optional path prefix: `http://127.0.0.1:7001/markets`. */
  baseUrl: string;
  agent: Dispatcher;
  /** Sent on every call (e.g. the gateway's own `X-Service-Client-Key`); undefined values are left out. */
  defaultHeaders?: HeaderValues;
  /** Timeout of one call, retry included. Default `DEFAULT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** `false` disables the circuit breaker (tests). */
  breaker?: BreakerOptions | false;
  /** `false` disables the connection-level retry of GETs. */
  retry?: RetryOptions | false;
  onRequest?: (info: RequestInfo) => void;
  onBreakerStateChange?: (service: ServiceName, state: BreakerState) => void;
  /** The process-wide ceiling of upstream body bytes being read at once (body.ts); absent: none. */
  inFlight?: InFlightBytes;
  /** `false`: identical GETs in flight are not shared (each makes its own call). */
  shareGets?: boolean;
  /** Calls of one operation in flight to this service at once, at most (transport/lanes.ts). Default `DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION`. */
  callsInFlightPerOperation?: number;
}

export interface GetOptions<T = unknown> {
  query?: Query;
  headers?: HeaderValues;
  /** Who `headers` speak for, by a hash of the credentials they carry (the alerts client's `subscriberKey`): a caller's identical GETs in flight share one call. Absent: the headers are hashed. */
  caller?: string;
  /** The operation the call is made for: its signal aborts the call, its budget counts it. */
  scope?: CallScope;
  /** Route template for metrics; defaults to the method and path. */
  route?: string;
  /** The largest body this call accepts; default the route's (`ROUTE_BODY_LIMITS`), else `DEFAULT_BODY_LIMIT`. */
  maxBytes?: number;
  /** Learns the size of the answer's body. */
  onBytes?: (bytes: number) => void;
  /** Makes the call's value of the parsed answer as it is handed over, its throw the call's failure (a client's reading of its answer, without an `await` step of its own). */
  map?: (raw: never) => T;
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
  get<T = unknown>(path: string, opts?: GetOptions<T>): Promise<T>;
  post<T = unknown>(path: string, opts?: PostOptions): Promise<T>;
  /** `values` merged with the client's own headers once, for headers sent on many calls (a caller's credentials): given as a call's `headers`, they are sent as they are. */
  callerHeaders(values: HeaderValues): Readonly<Record<string, string>>;
  /** Stops the breaker's timers. The agent is shared and closed by its owner. */
  close(): void;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { service } = options;
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  // The headers of a call without its own, built once: lower-case names, undefined values left out.
  const defaultHeaders = withHeaders({ accept: 'application/json' }, options.defaultHeaders);

  const onBreakerState = options.onBreakerStateChange;
  const breaker =
    options.breaker === false ? null : createBreaker(options.breaker ?? {}, onBreakerState && ((state) => onBreakerState(service, state)));

  // Outermost first: what each caller sees, then what each request to the upstream goes through.
  const send = compose(
    [
      deadline,
      budget,
      ledger(options.onRequest),
      cancel,
      lanes(options.callsInFlightPerOperation ?? DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION),
      options.shareGets === false ? null : share(defaultHeaders),
      breaker && guardedBy(breaker),
      timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    ],
    // The one retry of a GET is decided where a request fails, inside the dispatch step.
    createSend(options.agent, base.origin, options.inFlight, options.retry === false ? undefined : retry(options.retry)),
  );

  // Headers `callerHeaders` merged (one object per caller and request: alerts/client.ts), known by
  // their class: a caller's calls carry that one object, and sharing (share.ts) hashes it once.
  class Merged {
    [name: string]: string;
  }
  const headersOf = (values: HeaderValues | undefined): Record<string, string> => {
    if (!values) return defaultHeaders;
    if (values instanceof Merged) return values;
    return withHeaders({ ...defaultHeaders }, values);
  };

  function call<T>(method: 'GET' | 'POST', p: string, opts: GetOptions & PostOptions): Promise<T> {
    let headers = headersOf(opts.headers);
    let body: string | undefined;
    if (method === 'POST' && opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers = { ...headers, 'content-type': 'application/json' };
    }
    const route = opts.route ?? `${method} ${p}`;
    const call = new UpstreamCall({
      service,
      method,
      path: `${prefix}${p}${buildQuery(opts.query)}`,
      headers,
      caller: opts.caller,
      body,
      route,
      maxBytes: opts.maxBytes ?? ROUTE_BODY_LIMITS[opts.route ?? ''] ?? DEFAULT_BODY_LIMIT,
      onBytes: opts.onBytes,
      map: opts.map,
      scope: opts.scope,
      requestId: opts.scope?.requestId,
    });
    // The call's one promise: the layers settle it through the call (`call.to`), none makes its own.
    const answer = Promise.withResolvers<T>();
    call.to = answer;
    try {
      send(call);
    } catch (error) {
      // A call refused before it was made (no time left, no call left in the budget).
      answer.reject(toError(error));
    }
    return answer.promise;
  }

  return {
    service,
    get: (p, opts = {}) => call('GET', p, opts),
    post: (p, opts = {}) => call('POST', p, opts),
    callerHeaders: (values) => Object.freeze(withHeaders(Object.assign(new Merged(), defaultHeaders), values)),
    close: () => breaker?.close(),
  };
}

function withHeaders(into: Record<string, string>, values: HeaderValues | undefined): Record<string, string> {
  if (values) for (const name in values) if (values[name] !== undefined) into[name.toLowerCase()] = values[name];
  return into;
}
