import { UpstreamError, badBody, type ServiceName, type UpstreamErrorKind } from './errors.js';
import { isObject } from './read.js';

/** The one place where an upstream's HTTP answer becomes a value or an `UpstreamError` of the contract's kinds. */

const MAX_MESSAGE = 300;

/** Response headers as undici hands them over. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The parsed JSON object of a 2xx answer's body (read whole within its cap: transport/send.ts); throws when it is none. */
export function parseAnswer<T>(service: ServiceName, method: string, status: number, text: string): T {
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

/**
 * The `UpstreamError` a status other than 2xx means. `text` is its body, read for the upstream's
 * message within `ERROR_BODY_LIMIT` ('' when it was not: too large, or cut short).
 */
export function statusFailure(service: ServiceName, status: number, text: string, headers: ResponseHeaders): UpstreamError {
  if (status < 400) return new UpstreamError({ service, kind: 'UNAVAILABLE', status, retryable: false });
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
      return fail({ kind: 'RATE_LIMITED', retryAfterSeconds: retryAfter(headers['retry-after']) });
    default:
      if (status >= 500) return fail({ kind: 'UNAVAILABLE' });
      return fail({ kind: 'BAD_REQUEST', upstreamMessage: describe(payload?.['error'] ?? payload?.['message']) });
  }

  function fail(init: { kind: UpstreamErrorKind; upstreamMessage?: string | undefined; retryAfterSeconds?: number | undefined }): UpstreamError {
    return new UpstreamError({
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
