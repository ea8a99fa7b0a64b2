export type ServiceName = 'alerts' | 'markets' | 'assets';

export type UpstreamErrorKind =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_REQUEST'
  | 'CONFLICT'
  | 'UNPROCESSABLE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  /** Not an answer of the upstream: the operation spent its budget of upstream calls (see budget.ts). */
  | 'TOO_MANY_CALLS';

export interface UpstreamErrorInit {
  service: ServiceName;
  kind: UpstreamErrorKind;
  status?: number;
  /** Defaults: true for UNAVAILABLE and RATE_LIMITED, false otherwise. */
  retryable?: boolean;
  retryAfterSeconds?: number;
  /** The upstream's own explanation (`error` of a 400, `message` of a 409/422), truncated. */
  upstreamMessage?: string;
  /** What failed below HTTP: an undici/Node error code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), `EOPENBREAKER`, `ETIMEDOUT`, `EBADBODY`. */
  code?: string;
  message?: string;
}

/**
 * Every failure of an upstream call, whatever its cause. The message names the service and the
 * status or error code, never the URL, a token or a header: it is safe to log.
 */
export class UpstreamError extends Error {
  readonly service: ServiceName;
  readonly kind: UpstreamErrorKind;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  readonly upstreamMessage?: string;
  readonly code?: string;

  constructor(init: UpstreamErrorInit) {
    const detail = init.status !== undefined ? `answered ${init.status}` : init.code ? `failed (${init.code})` : 'failed';
    super(init.message ?? `${init.service} upstream ${detail}: ${init.kind}`);
    this.name = 'UpstreamError';
    this.service = init.service;
    this.kind = init.kind;
    this.retryable = init.retryable ?? (init.kind === 'UNAVAILABLE' || init.kind === 'RATE_LIMITED');
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.upstreamMessage !== undefined) this.upstreamMessage = init.upstreamMessage;
    if (init.code !== undefined) this.code = init.code;
  }
}

export function isUpstreamError(error: unknown, kind?: UpstreamErrorKind): error is UpstreamError {
  return error instanceof UpstreamError && (kind === undefined || error.kind === kind);
}

/** The gateway refusing to send a request the upstream would reject anyway (bad id, unsupported resolution). */
export function refused(service: ServiceName, message: string): UpstreamError {
  return new UpstreamError({ service, kind: 'BAD_REQUEST', upstreamMessage: message, message: `${service}: ${message}` });
}

/** A 2xx answer whose body is not what the contract promises. */
export function badBody(service: ServiceName, what: string, status?: number): UpstreamError {
  return new UpstreamError({
    service,
    kind: 'UNAVAILABLE',
    code: 'EBADBODY',
    ...(status !== undefined ? { status } : {}),
    message: `${service} upstream sent an unexpected body: ${what}`,
  });
}
