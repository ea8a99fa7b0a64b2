import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';
/** What a caller may send as its request id: short and printable, so it is safe in logs and headers. */
const ACCEPTED = /^[\w.:@/+=-]{1,128}$/;

const ids = new WeakMap<Request, string>();

/**
 * The request's id: the caller's `X-Request-Id` when it is a sensible one, else a generated UUID (an
 * operation over WebSocket, whose stand-in request carries none, gets its own). Echoed in the
 * response (plugins/request-id.ts), written in the request's log lines and sent on its upstream calls.
 */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    id = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
    ids.set(request, id);
  }
  return id;
}

/** The id for a request that sent this `X-Request-Id` (or none): the caller's when it is a sensible one, else a new UUID. */
export function requestIdFrom(sent: string | null | undefined): string {
  const trimmed = sent?.trim();
  return trimmed && ACCEPTED.test(trimmed) ? trimmed : randomUUID();
}
