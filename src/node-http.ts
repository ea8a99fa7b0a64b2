import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { http } from './node-http-module.js';
import { smallBodyReader } from './small-body.js';

/**
 * Node's HTTP server under Yoga: the server's own timeouts, and the request listener that reads small
 * GraphQL bodies whole before Yoga sees them. Starts nothing: `lifecycle.ts` listens and drains.
 */

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

/**
 * A request handler that may answer asynchronously (Yoga's node handler returns a promise, and handles
 * its own errors). `expect`, when it has one, is told when the listener begins reading a body for it,
 * before the request is handed over (admission.ts: its turn then comes in the same turn of the loop).
 */
export type NodeHandler = ((req: IncomingMessage, res: ServerResponse) => unknown) & { expect?: () => void };

/**
 * Answers a request before the handler when it can (fast-path/hits.ts: a cached hit): true when it
 * wrote the answer, false (having written nothing) to hand the request to the handler. `body` is the
 * small POST body read whole (parsed when JSON), or undefined.
 */
export type FastPath = ((req: IncomingMessage, res: ServerResponse, body: unknown) => boolean | Promise<boolean>) & {
  /** Answers from a JSON body's bytes, before they are parsed (a screen sends the same bytes each time), as the fast path would; false: the body is parsed and the request handled. Never throws. */
  fromBytes?: (req: IncomingMessage, res: ServerResponse, bytes: Buffer) => boolean | Promise<boolean>;
};

/** The handler as Node's `request` listener, which returns nothing: its promise, if any, is the handler's own business. */
export function nodeListener(handler: NodeHandler, fastPath?: FastPath): RequestListener {
  const handle = fastPath ? withFastPath(handler, fastPath) : handler;
  const fromBytes = fastPath?.fromBytes;
  const read = (req: IncomingMessage, res: ServerResponse, bytes: Buffer, json: boolean) => {
    // Without a listener's fast path to read it, a JSON body waits as bytes until `body` is read: the
    // direct path finds a body it knows by its bytes (withFastPath), and nothing parses it.
    if (json && !fromBytes && req instanceof GatewayRequest) req[HELD] = bytes;
    else (req as IncomingMessage & { body?: unknown }).body = json ? (parsedObject(bytes) ?? bytes) : bytes;
    void handle(req, res);
  };
  const readBody = smallBodyReader((req, res, bytes) => {
    const json = isJson(req.headers['content-type']);
    const answered = json && fromBytes ? fromBytes(req, res, bytes) : false;
    if (answered === false) read(req, res, bytes, json);
    else if (answered !== true) void answered.then((done) => done || read(req, res, bytes, json));
  });
  return (req, res) => {
    if (!smallPost(req)) return void handle(req, res);
    // A small JSON POST (every GraphQL request of a real client) is read here, whole, parsed, and handed
    // over as `req.body`: Yoga's server adapter (whatwg-node) then answers `request.json()` with it, and
    // the request has no body stream for Yoga's size limit to pipe through a TransformStream (a stream
    // pipeline, an AbortController and a DOMException per request: most of a cached hit's cost besides
    // the socket). Its declared length is still checked against the limit. Any other small body (not
    // JSON, or not an object) is handed over as its bytes and read by Yoga as before. The server's
    // requestTimeout bounds a slow body; a body that does not arrive whole never reaches the handler.
    readBody(req, res);
    handler.expect?.();
  };
}

/** Whether a content type names JSON (the one every client sends, compared first). */
function isJson(contentType: string | undefined): boolean {
  return contentType === 'application/json' || /\bjson\b/i.test(contentType ?? '');
}

const GRAPHQL_PATH = '/graphql';

/** Where a JSON body's bytes wait, unparsed, on a `GatewayRequest` until its `body` is read. */
const HELD = Symbol('body bytes');
/** Where a `GatewayRequest` keeps its body once read or set. */
const BODY = Symbol('body');

/**
 * The server's requests: a small JSON body read by the listener is parsed when `body` is first read
 * (by the fast path, or whatwg-node under Yoga), so a path that knows the bytes (the direct path's
 * remembered bodies) answers without parsing them.
 */
export class GatewayRequest extends http.IncomingMessage {
  // Set only on the requests that have them (no initializer): most requests never hold a body here.
  declare [HELD]: Buffer | undefined;
  declare [BODY]: unknown;

  get body(): unknown {
    const bytes = this[HELD];
    if (bytes !== undefined) {
      this[HELD] = undefined;
      this[BODY] = parsedObject(bytes) ?? bytes;
    }
    return this[BODY];
  }

  set body(value: unknown) {
    this[HELD] = undefined;
    this[BODY] = value;
  }
}

/** The handler behind the fast path: a request the fast path does not answer (or fails on) goes to the handler as it came. */
export function withFastPath(handler: NodeHandler, fastPath: FastPath): NodeHandler {
  const fallBack = (req: IncomingMessage, res: ServerResponse) => (res.headersSent ? undefined : handler(req, res));
  const fromBytes = fastPath.fromBytes;
  return (req, res) => {
    let answered: boolean | Promise<boolean>;
    try {
      const bytes = fromBytes && (req as Partial<GatewayRequest>)[HELD];
      answered = bytes ? fromBytes(req, res, bytes) : fastPath(req, res, (req as IncomingMessage & { body?: unknown }).body);
    } catch {
      answered = false;
    }
    if (answered === true) return;
    if (answered === false) return fallBack(req, res);
    return answered.then(
      (done) => (done ? undefined : fallBack(req, res)),
      () => fallBack(req, res),
    );
  };
}

/** The JSON object (or array) a body holds, or null: whatwg-node uses a parsed body only when it has keys. */
function parsedObject(bytes: Buffer): object | null {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    // Whether it has an own enumerable key, without the array of them `Object.keys` makes.
    for (const key in parsed) if (Object.hasOwn(parsed, key)) return parsed;
    return null;
  } catch {
    return null;
  }
}

/** Bodies read whole before the handler runs: GraphQL requests are a few kilobytes; anything larger streams. */
const SMALL_BODY_BYTES = 64 * 1024;

/** A POST to the GraphQL endpoint with a declared body of at most SMALL_BODY_BYTES (the webhook reads its own, in turn). */
function smallPost(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || !(req.url === GRAPHQL_PATH || req.url?.startsWith(`${GRAPHQL_PATH}?`))) return false;
  const length = Number(req.headers['content-length']);
  return length > 0 && length <= SMALL_BODY_BYTES;
}

/** `http.createServer` with the gateway's timeouts (and the fast path, when given). Responses are not limited: event streams stay open. */
export function createHttpServer(handler: NodeHandler, timeouts: Readonly<ServerTimeouts> = SERVER_TIMEOUTS, fastPath?: FastPath): Server {
  const server = http.createServer(
    {
      IncomingMessage: GatewayRequest,
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    nodeListener(handler, fastPath),
  );
  server.on('clientError', answerClientError);
  return server;
}

/** How long a socket whose request was refused is still read, and what arrives dropped, so the client can read the answer. */
const LINGER_MS = 2_000;

/**
 * Node's own answer to a request it cannot parse (400, 408, 413, 431), except that a request line or
 * headers over Node's limit (16 KiB) are answered 414 (the request line alone is too long) or 431,
 * then the socket is closed gracefully: Node's default destroys it while the client is still writing
 * a 1 MiB URL, and the unread bytes make the kernel reset the connection before the client reads the
 * answer. What the client goes on sending is read and dropped for LINGER_MS.
 */
function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'HPE_HEADER_OVERFLOW') {
    if (socket.writable && !response?.headersSent) socket.write(closingAnswer(NODE_ANSWERS[error.code ?? ''] ?? 400));
    socket.destroy(error);
    return;
  }
  if (lingering.has(socket)) return;
  lingering.add(socket);
  const requestLineEnded = error.rawPacket?.includes('\r\n') ?? true;
  if (socket.writable && !response?.headersSent) socket.end(closingAnswer(requestLineEnded ? 431 : 414));
  socket.on('data', () => {});
  socket.resume();
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
}

/** The statuses Node's default `clientError` handler answers by error code (400 otherwise). */
const NODE_ANSWERS: Record<string, number> = { HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };
/** Sockets already answered 414/431 (the parser reports each later chunk as another error). */
const lingering = new WeakSet<Duplex>();

function closingAnswer(status: number): string {
  const body = JSON.stringify({ error: status === 414 ? 'request line (URL) too long' : status === 431 ? 'request headers too large' : http.STATUS_CODES[status] });
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
