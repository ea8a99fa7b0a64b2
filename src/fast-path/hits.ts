import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { Credentials } from '../credentials.js';
import { matches, representationTag, strongTag } from '../etag.js';
import type { FastPath } from '../node-http.js';
import type { Coding } from '../plugins/compression.js';
import { COMPRESSION_THRESHOLD_BYTES, negotiate } from '../plugins/wire-encoding.js';
import type { PersistedDocuments } from '../plugins/trusted-documents.js';
import { acceptedRequestId } from '../request-id.js';
import { servedAge, wireFormsOf } from '../response-cache/held.js';
import type { ResponseCacheReader } from '../response-cache/plugin.js';
import { heldAnswer } from '../response-cache/store.js';
import { KnownBodies } from './bodies.js';
import { writeHitHead } from './head.js';
import { readHitRequest, readKnownPost, type HitRequest } from './hit-request.js';

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

/** Answers a request from the response cache and returns true, or returns false having written nothing; `fromBytes` does so from a JSON body's bytes. */
export type HitPath = FastPath;

/** Set on a node request by `fromBytes`: the bytes of a body it did not know, or `DECIDED` when it read the request from them (answered or not). */
const BODY_READ = Symbol('hit path body');
const DECIDED = Symbol('decided from the body bytes');
type ReadRequest = IncomingMessage & { [BODY_READ]?: Buffer | typeof DECIDED };

/**
 * The fast path for hits: a GraphQL request the response cache holds a fresh answer to is answered at
 * the HTTP listener (node-http.ts), from the same policies, keys, store and held bytes as the plugin,
 * with the status, body and headers Yoga's pipeline would send (Cache-Control, Age, ETag per
 * representation, Last-Modified, Vary, CORS, X-Request-Id, 304 for a matching If-None-Match), written
 * in one write. A hit through the pipeline (whatwg-node's Request and Headers, envelop, about twenty
 * plugins' hooks, the result processing and the wire encoding's hook) costs several times the socket's
 * own work (bench/PHASES.md, "cached hit"). Whatever it cannot answer identically falls through to the
 * pipeline, untouched: an entry past its grace, a compressed form not made yet, a caller to verify or
 * refuse, and every request `readHitRequest` leaves out. A stale entry within its grace is answered
 * and its refresh started, as the plugin does. A body answered as a hit is remembered (bodies.ts): the
 * next request of the same bytes is read without parsing them (`fromBytes`).
 */
export function createHitPath(options: HitPathOptions): HitPath {
  const bodies = new KnownBodies();
  const path: HitPath = (req, res, body) => {
    const read = (req as ReadRequest)[BODY_READ];
    // `fromBytes` read this request from the same bytes: the parsed body reads the same.
    if (read === DECIDED) return false;
    const request = readHitRequest(req, body, options.debugLedger, options.persisted);
    if (!request) return false;
    const answered = lookUp(options, request, req, res);
    if (read !== undefined && answered !== false) {
      // The parsed body was not handed to the pipeline: its parameters are the bytes' from now on.
      if (answered === true) bodies.remember(read, request.sent);
      else void answered.then((done) => done && bodies.remember(read, request.sent));
    }
    return answered;
  };
  path.fromBytes = (req, res, bytes) => {
    try {
      const sent = bodies.find(bytes);
      if (!sent) {
        (req as ReadRequest)[BODY_READ] = bytes;
        return false;
      }
      (req as ReadRequest)[BODY_READ] = DECIDED;
      const request = readKnownPost(req, sent, options.debugLedger, options.persisted);
      const answered = request ? lookUp(options, request, req, res) : false;
      // Never rejects: node-http.ts then reads the body and hands the request on.
      return answered instanceof Promise ? answered.catch(() => false) : answered;
    } catch {
      return false;
    }
  };
  return path;
}

/** The request's entry looked up and answered; false (having written nothing) when it is not one to answer here. */
function lookUp(options: HitPathOptions, request: HitRequest, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const { reader } = options;
  const cached = reader.keyOf(request.query, request.operationName, request.variables, request.credentials.subscriber);
  if (!cached) return false;
  const maxAgeMs = request.cacheControl.maxAgeMs;
  // An answer younger than any entry may be: the pipeline executes it.
  if (maxAgeMs !== null && maxAgeMs < cached.policy.ttlMs) return false;
  const found = reader.store.get(cached.key);
  if (!(found instanceof Promise)) return found ? answerHit(options, request, cached, found, req, res) : false;
  return found.then(
    (held) => (held ? answerHit(options, request, cached, held, req, res) : false),
    () => false,
  );
}

function answerHit(options: HitPathOptions, request: HitRequest, cached: Cached, held: ExecutionResult, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const freshness = heldAnswer(held);
  if (!freshness) return false;
  const { bytes } = freshness;
  // Past its grace, or older than the client allows: a miss, which the pipeline executes.
  const age = servedAge(freshness, options.reader.graceMs(cached.policy), request.cacheControl.maxAgeMs);
  if (!age) return false;
  const { ageMs, stale } = age;
  const forms = wireFormsOf(held);
  forms.etag ??= strongTag(bytes);
  const size = (forms.size ??= bytes.length);
  const coding = negotiate(request.header('accept-encoding'));
  const encoded = coding && size >= COMPRESSION_THRESHOLD_BYTES ? coding : null;
  const pending = encoded ? forms[encoded] : undefined;
  // Not compressed yet in this coding: the pipeline's wire encoding makes it (once, for every later hit).
  if (encoded && !pending) return false;
  const hit: Hit = { options, request, cached, held, req, res, ageMs, stale, encoded, requestId: acceptedRequestId(request.header('x-request-id')) };
  if (pending) return pending.then((compressed) => counted(hit, compressed), () => false);
  return counted(hit, bytes);
}

/** One hit being answered: what its answer is written from. */
interface Hit {
  options: HitPathOptions;
  request: HitRequest;
  cached: Cached;
  held: ExecutionResult;
  req: IncomingMessage;
  res: ServerResponse;
  ageMs: number;
  stale: boolean;
  encoded: Coding | null;
  requestId: string;
}

/** The answer written once the caller's operation is counted (when the rate limit counts hits here). */
function counted(hit: Hit, body: Buffer): boolean | Promise<boolean> {
  const count = hit.options.countOperation;
  if (!count) return write(hit, body);
  return count(hit.request.credentials, hit.req, hit.requestId).then((done) => done && write(hit, body));
}

function write(hit: Hit, body: Buffer): true {
  const { options, request, cached } = hit;
  options.reader.countHit();
  if (hit.stale) refresh(options.reader, cached.key, request, hit.req);
  const age = Math.floor(hit.ageMs / 1000);
  const cacheControl = `${cached.policy.scope === 'PUBLIC' ? 'public' : 'private'}, max-age=${Math.max(0, Math.floor(cached.policy.ttlMs / 1000) - age)}`;
  const etag = representationTag(wireFormsOf(hit.held).etag!, hit.encoded);
  if (request.method === 'GET' && matches(request.header('if-none-match'), etag)) writeNotModified(hit, etag, cacheControl);
  else writeAnswer(hit, body, cacheControl, age, etag);
  return true;
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
      // A copy: the parameters of a remembered body are shared by its hits, and the pipeline gets its own.
      const params = structuredClone({ query: request.query, operationName: request.operationName, variables: request.variables, ...request.named });
      // The refresh runs in process (yoga.fetch): its URL names the endpoint only. No Fetch API request
      // is made for it here: the refresher builds the one it sends.
      return { request: { url: 'http://localhost/graphql', headers }, params, serverContext: { req } };
    });
  } catch {
    // Not refreshed: the entry ends with its grace period, and a request then executes.
  }
}

/** The headers the entry was stored with (`extensions.http.headers`: Last-Modified). */
function storedHeaders(held: ExecutionResult): Record<string, string> {
  return (held.extensions as { http?: { headers?: Record<string, string> } } | undefined)?.http?.headers ?? NO_HEADERS;
}
const NO_HEADERS: Record<string, string> = Object.freeze({});
const NO_CORS: readonly string[] = Object.freeze([]);

/** The 200 with its headers in the order Yoga's pipeline sets them, and the body (head.ts). */
function writeAnswer(hit: Hit, body: Buffer, cacheControl: string, age: number, etag: string): void {
  const { options, request } = hit;
  const origin = options.cors ? request.header('origin') : null;
  const cors = origin !== null ? options.cors!(origin) : false;
  writeHitHead(hit.res, {
    mediaType: request.mediaType,
    stored: storedHeaders(hit.held),
    cors: cors ? corsHeaders(cors) : NO_CORS,
    requestId: hit.requestId,
    cacheControl,
    age,
    vary: options.cors ? 'Origin, Accept-Encoding' : 'Accept-Encoding',
    etag,
    encoded: hit.encoded,
  }, body);
}

/** The 304 with the headers the wire encoding keeps of the answer it stands for (etag.ts). */
function writeNotModified(hit: Hit, etag: string, cacheControl: string): void {
  const lastModified = Object.entries(storedHeaders(hit.held)).find(([name]) => name.toLowerCase() === 'last-modified')?.[1];
  const headers = ['etag', etag, 'cache-control', cacheControl];
  if (lastModified !== undefined) headers.push('last-modified', lastModified);
  headers.push('vary', hit.options.cors ? 'Origin, Accept-Encoding' : 'Accept-Encoding', 'x-request-id', hit.requestId);
  hit.res.writeHead(304, headers);
  hit.res.end();
}

/** The CORS headers of an answer to an allowed origin, as Yoga's CORS plugin writes them for these options. */
export function corsHeaders(cors: CorsOptions): string[] {
  const headers = ['access-control-allow-origin', cors.origin];
  if (cors.credentials ?? cors.origin !== '*') headers.push('access-control-allow-credentials', 'true');
  if (cors.exposedHeaders) headers.push('access-control-expose-headers', cors.exposedHeaders.join(', '));
  if (cors.maxAge) headers.push('access-control-max-age', String(cors.maxAge));
  return headers;
}
