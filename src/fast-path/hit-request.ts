import type { IncomingMessage } from 'node:http';
import { readCacheControl, type RequestCacheControl } from '../cache-control.js';
import { readCredentials, type Credentials } from '../credentials.js';
import { requestShapeRefusal } from '../plugins/request-shape.js';
import type { PersistedDocuments } from '../plugins/trusted-documents.js';
import { documentText, type NamedDocument } from './persisted.js';

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
  /** How a persisted document was named (`documentId`, or APQ's `extensions`): a stale entry's refresh names it so again. */
  named?: { documentId?: string; extensions?: Record<string, unknown> };
  /** The parameters as sent (shared by every request of the same body bytes: read, never changed). */
  sent: Sent;
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
/** Parameters a GraphQL request carries (`documentId` names a trusted document); any other in a POST body is Yoga's 400. */
const PARAMETERS = new Set(['query', 'operationName', 'variables', 'extensions', 'documentId']);
/** Only printable ASCII in a GET's URL: anything else the Fetch API's URL would re-encode first. */
const PLAIN_URL = /^[\x21-\x7e]*$/;
/** What `X-Request-Timeout-Ms` must be (request-deadline.ts); anything else is the pipeline's 400. */
const TIMEOUT = /^\d{1,15}$/;

/**
 * The request's reading, or null when the fast path leaves it to the pipeline: another path or
 * method, a body Yoga would parse otherwise or refuse, a document the trusted-documents plugins would
 * not run as it is (persisted.ts), the upstream ledger, `no-store` or `no-cache`, a preflight's
 * headers, a timeout header the pipeline refuses, or an `Accept` that no JSON answer satisfies. A
 * `documentId` or an APQ hash is answered as the text it names, whose entry the two share.
 */
export function readHitRequest(req: IncomingMessage, body: unknown, debugLedger: boolean, persisted?: PersistedDocuments, executes = false): HitRequest | null {
  const sent = req.method === 'POST' ? (jsonPostTo(req) ? bodyParams(body) : null) : req.method === 'GET' ? getParams(req.url ?? '') : null;
  return sent && hitRequestOf(req, sent, debugLedger, persisted, executes);
}

/** A JSON POST's reading from parameters read before from the same body bytes (fast-path/bodies.ts), or null as `readHitRequest`. */
export function readKnownPost(req: IncomingMessage, sent: Sent, debugLedger: boolean, persisted?: PersistedDocuments, executes = false): HitRequest | null {
  return req.method === 'POST' && jsonPostTo(req) ? hitRequestOf(req, sent, debugLedger, persisted, executes) : null;
}

function hitRequestOf(req: IncomingMessage, sent: Sent, debugLedger: boolean, persisted: PersistedDocuments | undefined, executes: boolean): HitRequest | null {
  const query = documentText(persisted, sent);
  if (query === null) return null;
  // Node makes the headers object on first read: read once, not once per header asked.
  const headers = req.headers;
  const header = (name: string): string | null => {
    const value = headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  if (debugLedger && header('x-gateway-debug')?.trim() === '1') return null;
  if (header('access-control-request-method') !== null || header('access-control-request-headers') !== null) return null;
  const timeout = header('x-request-timeout-ms')?.trim();
  if (timeout !== undefined && (!TIMEOUT.test(timeout) || Number(timeout) === 0)) return null;
  const cacheControl = readCacheControl(header('cache-control'));
  // The direct path (src/direct/, `executes`) answers these by an execution, as the pipeline does.
  if (!executes && (cacheControl.noStore || cacheControl.noCache)) return null;
  const mediaType = knownMediaType(header('accept'));
  if (!mediaType) return null;
  const { operationName, variables, documentId, extensions } = sent;
  const named = query === sent.query ? undefined : documentId != null ? { documentId: documentId as string } : { extensions: extensions as Record<string, unknown> };
  // One shape for every request (`named` undefined when the text was sent), with no spread object.
  return { method: req.method as 'GET' | 'POST', query, operationName, variables, named, sent, mediaType, cacheControl, credentials: readCredentials({ get: header }), header };
}

/** The parameters as sent, the document not yet found. */
export type Sent = NamedDocument & Pick<HitRequest, 'operationName' | 'variables'>;

/** A POST to the GraphQL path with a body Yoga parses as JSON. */
function jsonPostTo(req: IncomingMessage): boolean {
  return pathIs(req.url) && isJsonPost(req.headers['content-type']);
}

/** A parsed JSON body's parameters, or null for any Yoga would refuse (the same for the same bytes). */
function bodyParams(body: unknown): Sent | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { query, operationName, variables, extensions, documentId } = body as Record<string, unknown>;
  for (const name in body) if (!PARAMETERS.has(name) && (body as Record<string, unknown>)[name] != null) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  const sent = { query, documentId, extensions, operationName: operationName ?? undefined, variables: (variables ?? undefined) as Sent['variables'] };
  return requestShapeRefusal(sent) ? null : sent;
}

/** A GET's parameters as plugins/url-params.ts and the trusted documents' `documentId` read them; null for anything they would refuse. */
function getParams(url: string): Sent | null {
  const mark = url.indexOf('?');
  if (mark < 0 || url.slice(0, mark) !== GRAPHQL_PATH || !PLAIN_URL.test(url)) return null;
  const search = new URLSearchParams(url.slice(mark + 1));
  const variables = jsonObject(search.get('variables'));
  const extensions = jsonObject(search.get('extensions'));
  if (variables === null || extensions === null) return null;
  const named = { query: search.get('query') || undefined, documentId: search.get('documentId') || undefined, extensions };
  const sent = { ...named, operationName: search.get('operationName') || undefined, variables };
  return requestShapeRefusal(sent) ? null : sent;
}

/** A URL parameter's JSON object, undefined when absent (or JSON null), null when it is not one (the pipeline's 400). */
function jsonObject(raw: string | null): Record<string, unknown> | undefined | null {
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (value === null) return undefined;
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function pathIs(url: string | undefined): boolean {
  return url === GRAPHQL_PATH || (url !== undefined && url.startsWith(`${GRAPHQL_PATH}?`) && PLAIN_URL.test(url));
}

/** The content types Yoga parses as a JSON body (its `isPOSTJsonRequest`). */
function isJsonPost(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  const type = contentType?.split(',')[0];
  if (!type) return false;
  return ['application/json', 'application/graphql+json'].some((t) => type === t || type.startsWith(`${t};`));
}

/** Accept headers whose media type was read: a client sends the same one on every request. */
const mediaTypes = new Map<string | null, MediaType | null>();
/** Distinct Accept headers remembered, and the longest one remembered: any other is read each time. */
const MEDIA_TYPES_REMEMBERED = 64;
const MEDIA_TYPE_HEADER_CHARS = 256;

/** `mediaTypeOf`, remembered per header value (its reading was a tenth of a hit's own work in the profile). */
function knownMediaType(accept: string | null): MediaType | null {
  let type = mediaTypes.get(accept);
  if (type !== undefined) return type;
  type = mediaTypeOf(accept);
  if (accept === null || accept.length <= MEDIA_TYPE_HEADER_CHARS) {
    if (mediaTypes.size >= MEDIA_TYPES_REMEMBERED) mediaTypes.clear();
    mediaTypes.set(accept, type);
  }
  return type;
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
