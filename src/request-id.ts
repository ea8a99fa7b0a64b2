import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';
/** What a caller may send as its request id: short and printable, so it is safe in logs and headers. */
const ACCEPTED = /^[\w.:@/+=-]{1,128}$/;

const ids = new WeakMap<Request, string>();

/**
 * The request's id: the caller's `X-Request-Id` when it is a sensible one, else a generated UUID (an
 * operation over WebSocket, whose stand-in request carries none, gets its own). Echoed in the
 * response (plugins/request-decisions.ts), written in the request's log lines and sent on its upstream calls.
 */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    id = acceptedRequestId(request.headers.get(REQUEST_ID_HEADER));
    ids.set(request, id);
  }
  return id;
}

/** The id a caller sent, when it is a sensible one (one header value, trimmed), else a generated UUID. */
export function acceptedRequestId(header: string | string[] | null | undefined): string {
  const sent = typeof header === 'string' ? header.trim() : undefined;
  return sent && ACCEPTED.test(sent) ? sent : randomUUID();
}
