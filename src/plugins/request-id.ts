import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

const HEADER = 'x-request-id';
/** What a caller may send as its request id: short and printable, so it is safe in logs and headers. */
const ACCEPTED = /^[\w.:@/+=-]{1,128}$/;

const ids = new WeakMap<Request, string>();

/** The request's id: the caller's `X-Request-Id` when it is a sensible one, else a generated UUID. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    const sent = request.headers.get(HEADER)?.trim();
    id = sent && ACCEPTED.test(sent) ? sent : randomUUID();
    ids.set(request, id);
  }
  return id;
}

/**
 * Gives every request an id, taken from `X-Request-Id` or generated, and echoes it in the response's
 * `X-Request-Id`, so a caller's report can be matched to the gateway's log lines (which carry it).
 */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set(HEADER, requestIdOf(request));
    },
  };
}
