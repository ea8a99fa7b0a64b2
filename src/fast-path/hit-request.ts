import type { IncomingMessage } from 'node:http';
import { readCacheControl, type RequestCacheControl } from '../cache-control.js';
import { readCredentials, type Credentials } from '../credentials.js';
import { requestShapeRefusal } from '../plugins/request-shape.js';

/**
 * What the fast path for hits (hits.ts) reads of a node request, read as Yoga's pipeline would read it
 * (the same parameters, headers, media type and caller), or null for any request it does not answer:
 * those take the whole pipeline, which answers them as it always has.
 */
export interface HitRequest {
  method: 'GET' | 'POST';
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  /** The answer's media type, as Yoga's result processors choose it from `Accept`. */
  mediaType: MediaType;
  cacheControl: RequestCacheControl;
  credentials: Credentials;
  /** A request header as the Fetch API's `Headers` would give it (repeated values joined). */
  header: (name: string) => string | null;
}

export type MediaType = 'application/json' | 'application/graphql-response+json';

/** The one path the fast path serves (a stream path, the webhook and the probes take the pipeline). */
const GRAPHQL_PATH = '/graphql';
/** Parameters a GraphQL request carries; any other in a POST body is Yoga's 400. */
const PARAMETERS = new Set(['query', 'operationName', 'variables', 'extensions']);
/** Only printable ASCII in a GET's URL: anything else the Fetch API's URL would re-encode first. */
const PLAIN_URL = /^[\x21-\x7e]*$/;
/** What `X-Request-Timeout-Ms` must be (request-deadline.ts); anything else is the pipeline's 400. */
const TIMEOUT = /^\d{1,15}$/;

/**
 * The request's reading, or null when the fast path leaves it to the pipeline: another path or
 * method, a body Yoga would parse otherwise or refuse, persisted documents and APQ (`documentId`,
 * `extensions`), the upstream ledger, `no-store` or `no-cache`, a preflight's headers, a timeout
 * header the pipeline refuses, or an `Accept` that no JSON answer satisfies.
 */
export function readHitRequest(req: IncomingMessage, body: unknown, debugLedger: boolean, executes = false): HitRequest | null {
  const params = req.method === 'POST' ? postParams(req, body) : req.method === 'GET' ? getParams(req.url ?? '') : null;
  if (!params || requestShapeRefusal(params)) return null;
  const header = (name: string): string | null => {
    const value = req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  if (debugLedger && header('x-gateway-debug')?.trim() === '1') return null;
  if (header('access-control-request-method') !== null || header('access-control-request-headers') !== null) return null;
  const timeout = header('x-request-timeout-ms')?.trim();
  if (timeout !== undefined && (!TIMEOUT.test(timeout) || Number(timeout) === 0)) return null;
  const cacheControl = readCacheControl(header('cache-control'));
  // The direct path (src/direct/, `executes`) answers these by an execution, as the pipeline does.
  if (!executes && (cacheControl.noStore || cacheControl.noCache)) return null;
  const mediaType = mediaTypeOf(header('accept'));
  if (!mediaType) return null;
  return { method: req.method as 'GET' | 'POST', ...params, mediaType, cacheControl, credentials: readCredentials({ get: header }), header };
}

type Params = Pick<HitRequest, 'query' | 'operationName' | 'variables'>;

/** A JSON POST's parameters from the body node-http.ts parsed: a plain query, nothing Yoga would refuse or look up. */
function postParams(req: IncomingMessage, body: unknown): Params | null {
  if (!pathIs(req.url) || !isJsonPost(req.headers['content-type']) || typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  for (const name in body) if (!PARAMETERS.has(name) && (body as Record<string, unknown>)[name] != null) return null;
  if (typeof query !== 'string' || !query || extensions != null) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  return { query, operationName: operationName ?? undefined, variables: (variables ?? undefined) as Params['variables'] };
}

/** A GET's parameters as plugins/url-params.ts reads them; null for a persisted document, extensions, or anything it would refuse. */
function getParams(url: string): Params | null {
  const mark = url.indexOf('?');
  if (mark < 0 || url.slice(0, mark) !== GRAPHQL_PATH || !PLAIN_URL.test(url)) return null;
  const search = new URLSearchParams(url.slice(mark + 1));
  const query = search.get('query');
  if (!query || search.get('documentId') || search.get('extensions')) return null;
  const raw = search.get('variables');
  let variables: unknown;
  try {
    variables = raw ? JSON.parse(raw) : undefined;
  } catch {
    return null;
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  return { query, operationName: search.get('operationName') || undefined, variables: (variables ?? undefined) as Params['variables'] };
}

function pathIs(url: string | undefined): boolean {
  return url === GRAPHQL_PATH || (url !== undefined && url.startsWith(`${GRAPHQL_PATH}?`) && PLAIN_URL.test(url));
}

/** The content types Yoga parses as a JSON body (its `isPOSTJsonRequest`). */
function isJsonPost(contentType: string | undefined): boolean {
  const type = contentType?.split(',')[0];
  if (!type) return false;
  return ['application/json', 'application/graphql+json'].some((t) => type === t || type.startsWith(`${t};`));
}

/**
 * The JSON media type Yoga's result processors answer with for this `Accept` (graphql-yoga's
 * `useResultProcessors`, whose JSON processor is tried last and so wins over a stream when both
 * match): of the first listed type that matches one, `application/json` when it matches that. Null
 * when none matches (Yoga's 406, or a stream).
 */
export function mediaTypeOf(accept: string | null): MediaType | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type = '', ...params] = entry.split(';');
    if ((params.find((p) => p.includes('charset=')) ?? 'charset=utf-8') !== 'charset=utf-8') continue;
    if (matches(type, 'application/json')) return 'application/json';
    if (matches(type, 'application/graphql-response+json')) return 'application/graphql-response+json';
  }
  return null;
}

function matches(asked: string, offered: string): boolean {
  const [pre, suf] = asked.split('/');
  const [offeredPre, offeredSuf] = offered.split('/');
  return (pre === '*' || pre === offeredPre) && (suf === '*' || suf === offeredSuf);
}
