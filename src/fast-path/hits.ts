import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { Credentials } from '../credentials.js';
import { matches, representationTag, strongTag } from '../etag.js';
import { COMPRESSION_THRESHOLD_BYTES, negotiate } from '../plugins/wire-encoding.js';
import type { PersistedDocuments } from '../plugins/trusted-documents.js';
import { acceptedRequestId } from '../request-id.js';
import { wireFormsOf } from '../response-cache/held.js';
import { readHitRequest, type HitRequest } from './hit-request.js';
import type { ResponseCacheReader } from '../response-cache/plugin.js';
import { heldFreshness, resultBody } from '../response-cache/store.js';

/** The CORS options the gateway answers an origin with (app.ts), or false for an origin it does not list. */
export interface CorsOptions {
  origin: string;
  credentials?: boolean;
  exposedHeaders?: string[];
  maxAge?: number;
}

export interface HitPathOptions {
  reader: ResponseCacheReader;
  /** Whether `X-Gateway-Debug: 1` asks for the upstream ledger (such an answer is its own: never a hit). */
  debugLedger: boolean;
  /** The trusted documents and APQ the pipeline looks up (plugins/trusted-documents.ts): a `documentId` or hash is answered as its text. */
  persisted?: PersistedDocuments;
  /** The CORS options for a request's `Origin` (Yoga's `cors` option), when CORS is on. */
  cors?: (origin: string) => CorsOptions | false;
  /**
   * Counts the answer as one operation of its caller (the rate limit, plugins/rate-limit.ts): false when
   * the pipeline must count it instead (credentials to verify first, or a refusal to answer).
   */
  countOperation?: (credentials: Credentials, req: IncomingMessage, requestId: string) => Promise<boolean>;
}

/** Answers a request from the response cache and returns true, or returns false having written nothing. */
export type HitPath = (req: IncomingMessage, res: ServerResponse, body: unknown) => boolean | Promise<boolean>;

/**
 * The fast path for hits: a GraphQL request the response cache holds a fresh answer to is answered at
 * the HTTP listener (node-http.ts), from the same policies, keys, store and held wire forms as the
 * plugin, with the status, body and headers Yoga's pipeline would send (Cache-Control, Age, ETag per
 * representation, Last-Modified, Vary, CORS, X-Request-Id, 304 for a matching If-None-Match), written
 * in one write. A hit through the pipeline (whatwg-node's Request and Headers, envelop, about twenty
 * plugins' hooks, the result processing and the wire encoding's hook) costs several times the socket's
 * own work (bench/PHASES.md, "cached hit"). Whatever it cannot answer identically falls through to the
 * pipeline, untouched: an entry past its grace, a compressed form not made yet, a caller to verify or
 * refuse, and every request `readHitRequest` leaves out. A stale entry within its grace is answered
 * and its refresh started, as the plugin does.
 */
export function createHitPath(options: HitPathOptions): HitPath {
  const { reader } = options;
  return (req, res, body) => {
    const request = readHitRequest(req, body, options.debugLedger, options.persisted);
    if (!request) return false;
    const cached = reader.keyOf(request.query, request.operationName, request.variables, request.credentials.subscriber);
    if (!cached) return false;
    const maxAgeMs = request.cacheControl.maxAgeMs;
    // An answer younger than any entry may be: the pipeline executes it.
    if (maxAgeMs !== null && maxAgeMs < cached.policy.ttlMs) return false;
    const found = reader.store.get(cached.key);
    const answer = (held: ExecutionResult | undefined) => (held ? answerHit(options, request, cached, held, req, res) : false);
    return found instanceof Promise ? found.then(answer, () => false) : answer(found);
  };
}

function answerHit(options: HitPathOptions, request: HitRequest, { key, policy }: Cached, held: ExecutionResult, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const freshness = heldFreshness(held);
  const ageMs = freshness ? Math.max(0, Date.now() - freshness.storedAt) : 0;
  const stale = freshness !== undefined && ageMs > freshness.ttlMs;
  // Past its grace, or older than the client allows: a miss, which the pipeline executes.
  const maxAgeMs = request.cacheControl.maxAgeMs;
  if (stale && (ageMs > freshness.ttlMs + options.reader.graceMs(policy) || (maxAgeMs !== null && ageMs > maxAgeMs))) return false;
  const text = resultBody(held);
  const forms = wireFormsOf(held);
  forms.etag ??= strongTag(text);
  const identity = (forms.identity ??= Buffer.from(text));
  const size = (forms.size ??= identity.length);
  const coding = negotiate(request.header('accept-encoding'));
  const encoded = coding && size >= COMPRESSION_THRESHOLD_BYTES ? coding : null;
  const pending = encoded ? forms[encoded] : undefined;
  // Not compressed yet in this coding: the pipeline's wire encoding makes it (once, for every later hit).
  if (encoded && !pending) return false;

  const requestId = acceptedRequestId(request.header('x-request-id'));
  const age = Math.floor(ageMs / 1000);
  const head: Head = {
    etag: representationTag(forms.etag, encoded),
    cacheControl: `${policy.scope === 'PUBLIC' ? 'public' : 'private'}, max-age=${Math.max(0, Math.floor(policy.ttlMs / 1000) - age)}`,
    age: String(age),
    vary: options.cors ? 'Origin, Accept-Encoding' : 'Accept-Encoding',
    requestId,
    stored: (held.extensions as { http?: { headers?: Record<string, string> } } | undefined)?.http?.headers ?? {},
  };
  const respond = (bytes: Buffer): boolean | Promise<boolean> => {
    const write = () => {
      options.reader.countHit();
      if (stale) refresh(options.reader, key, request, req);
      if (request.method === 'GET' && matches(request.header('if-none-match'), head.etag)) writeNotModified(res, head);
      else writeAnswer(res, head, request, encoded, bytes, options);
      return true;
    };
    return options.countOperation ? options.countOperation(request.credentials, req, requestId).then((counted) => counted && write()) : write();
  };
  return pending ? pending.then(respond, () => false) : respond(identity);
}

type Cached = NonNullable<ReturnType<ResponseCacheReader['keyOf']>>;

/**
 * Refreshes a stale entry answered here as the plugin does (refresh.ts), from the request's headers
 * and parameters; the refresh request is made only when no refresh of the key is running.
 */
function refresh(reader: ResponseCacheReader, key: string, request: HitRequest, req: IncomingMessage): void {
  try {
    reader.refresh(key, () => {
      const headers: Record<string, string> = {};
      for (const name in req.headers) {
        const value = req.headers[name];
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      // A persisted document is named as the client named it: the refresh runs what the client may run.
      const params = { query: request.query, operationName: request.operationName, variables: request.variables, ...request.named };
      // The refresh runs in process (yoga.fetch): its URL names the endpoint only. No Fetch API request
      // is made for it here: the refresher builds the one it sends.
      return { request: { url: 'http://localhost/graphql', headers }, params, serverContext: { req } };
    });
  } catch {
    // Not refreshed: the entry ends with its grace period, and a request then executes.
  }
}

/** What every answer of one hit carries. */
interface Head {
  etag: string;
  cacheControl: string;
  age: string;
  vary: string;
  requestId: string;
  /** The headers the entry was stored with (`extensions.http.headers`: Last-Modified). */
  stored: Record<string, string>;
}

/** The 200, its headers in the order Yoga's pipeline sets them, and the body, in one write. */
function writeAnswer(res: ServerResponse, head: Head, request: HitRequest, encoded: string | null, bytes: Buffer, options: HitPathOptions): void {
  const headers: string[] = ['content-type', `${request.mediaType}; charset=utf-8`];
  for (const name in head.stored) headers.push(name.toLowerCase(), head.stored[name]!);
  headers.push('content-length', String(bytes.length));
  const origin = request.header('origin');
  const cors = origin !== null ? options.cors?.(origin) : false;
  if (cors) headers.push(...corsHeaders(cors));
  headers.push('x-request-id', head.requestId, 'cache-control', head.cacheControl, 'age', head.age, 'vary', head.vary, 'etag', head.etag);
  if (encoded) headers.push('content-encoding', encoded);
  res.writeHead(200, headers);
  res.end(bytes);
}

/** The 304 with the headers the wire encoding keeps of the answer it stands for (etag.ts). */
function writeNotModified(res: ServerResponse, head: Head): void {
  const lastModified = Object.entries(head.stored).find(([name]) => name.toLowerCase() === 'last-modified')?.[1];
  const headers = ['etag', head.etag, 'cache-control', head.cacheControl];
  if (lastModified !== undefined) headers.push('last-modified', lastModified);
  headers.push('vary', head.vary, 'x-request-id', head.requestId);
  res.writeHead(304, headers);
  res.end();
}

/** The CORS headers of an answer to an allowed origin, as Yoga's CORS plugin writes them for these options. */
export function corsHeaders(cors: CorsOptions): string[] {
  const headers = ['access-control-allow-origin', cors.origin];
  if (cors.credentials ?? cors.origin !== '*') headers.push('access-control-allow-credentials', 'true');
  if (cors.exposedHeaders) headers.push('access-control-expose-headers', cors.exposedHeaders.join(', '));
  if (cors.maxAge) headers.push('access-control-max-age', String(cors.maxAge));
  return headers;
}
