import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';

/**
 * The HTTP server's own timeouts, chosen rather than Node's defaults (a request may take 300 s to
 * arrive; an idle keep-alive socket closes after 5 s, before a proxy's 60 s).
 */
export interface ServerTimeouts {
  /** Whole request, headers and body, must arrive within this; else 408 and the socket closes. Default 30 s (an 8 MiB webhook at 300 KB/s). */
  requestTimeoutMs: number;
  /** Headers must arrive within this. Default 10 s. */
  headersTimeoutMs: number;
  /** An idle keep-alive socket stays open this long: longer than a proxy's usual 60 s, so the proxy closes first. Default 65 s. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two request timeouts (its default, 30 s, would add up to that much). Default 1 s. */
  checkIntervalMs: number;
}

export const SERVER_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 65_000,
  checkIntervalMs: 1_000,
});

/** A request handler that may answer asynchronously (Yoga's node handler returns a promise, and handles its own errors). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The handler as Node's `request` listener, which returns nothing: its promise, if any, is the handler's own business. */
export function nodeListener(handler: NodeHandler): RequestListener {
  return (req, res) => void handler(req, res);
}

/** `http.createServer` with the gateway's timeouts. Responses are not limited: event streams stay open. */
export function createHttpServer(handler: NodeHandler, timeouts: Readonly<ServerTimeouts> = SERVER_TIMEOUTS): Server {
  return createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    nodeListener(handler),
  );
}
