import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';
/** What a caller may send as its request id: short and printable, so it is safe in logs and headers. */
const ACCEPTED = /^[\w.:@/+=-]{1,128}$/;

// The id is kept on the request under a symbol of this module's, because a WeakMap entry per request
// costs the collector an ephemeron per request. A request that cannot take a property (frozen, sealed)
// keeps it in the WeakMap. A stand-in request the gateway makes (src/direct/) carries it from creation.
export const REQUEST_ID: unique symbol = Symbol('requestId');
const ids = new WeakMap<Request, string>();
type Held = Request & { [REQUEST_ID]?: string };

/**
 * The request's id: the caller's `X-Request-Id` when it is a sensible one, else a generated one (an
 * operation over WebSocket, whose stand-in request carries none, gets its own). Echoed in the
 * response (plugins/request-decisions.ts), written in the request's log lines and sent on its upstream calls.
 */
export function requestIdOf(request: Request): string {
  const held = (request as Held)[REQUEST_ID] ?? ids.get(request);
  if (held !== undefined) return held;
  const id = acceptedRequestId(request.headers.get(REQUEST_ID_HEADER));
  if (Object.isExtensible(request)) (request as Held)[REQUEST_ID] = id;
  else ids.set(request, id);
  return id;
}

/** The id a caller sent, when it is a sensible one (one header value, trimmed), else a generated one. */
export function acceptedRequestId(header: string | string[] | null | undefined): string {
  const sent = typeof header === 'string' ? header.trim() : undefined;
  return sent && ACCEPTED.test(sent) ? sent : generatedRequestId();
}

// A generated id is a random UUID made once per process with its last 12 hex digits replaced by a
// counter: UUID-shaped, unique within the process (2^48 ids) and, by the random rest, across
// replicas, at the cost of a number's formatting instead of a UUID's per request. An id names a request
// in logs and upstream calls; it authorizes nothing, so it need not be unguessable.
const PREFIX = randomUUID().slice(0, 24);
const COUNTER_DIGITS = 12;
const COUNTER_LIMIT = 16 ** COUNTER_DIGITS;
let counter = Math.floor(Math.random() * 2 ** 32);

/** A new request id, of the form of a UUID (`8-4-4-4-12` lower-case hex digits). */
function generatedRequestId(): string {
  counter = (counter + 1) % COUNTER_LIMIT;
  return PREFIX + counter.toString(16).padStart(COUNTER_DIGITS, '0');
}
