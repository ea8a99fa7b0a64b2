import type { ServerResponse } from 'node:http';
import type { MediaType } from './hit-request.js';

/** What a hit's 200 carries besides the lines held per entry. */
export interface HitHead {
  mediaType: MediaType;
  /** The headers the entry was stored with (`extensions.http.headers`: Last-Modified). */
  stored: Record<string, string>;
  length: number;
  /** The CORS headers for the request's origin, as name and value pairs (none: empty). */
  cors: readonly string[];
  requestId: string;
  cacheControl: string;
  age: number;
  vary: string;
  etag: string;
  encoded: string | null;
}

/** The lines of one representation of an entry that are the same on every hit: before the request's own lines, and after them. */
interface Lines {
  before: string;
  after: string;
  vary: string;
}

/** Per held entry, its representations' lines (by media type and coding): made on the first hit of each. */
const linesOf = new WeakMap<object, (Lines | undefined)[]>();
const CODINGS = [null, 'br', 'gzip'];

/**
 * Writes a hit's 200, its headers in the order Yoga's pipeline sets them (content type, the stored
 * Last-Modified, length, CORS, request id, Cache-Control, Age, Vary, ETag, coding), then Node's own
 * Date and keep-alive lines, as one string head and the body in one write. The lines an entry's
 * representation always carries are made once per entry; Node's `writeHead` validated and joined
 * every header on each hit (bench/PHASES.md, "cached hit"). The string head is handed to Node's
 * response as `writeHead` leaves it, for a keep-alive response in its plain state only; any other
 * (a closing connection, an HTTP/1.0 client, a Node whose response lacks those fields) is written by
 * `writeHead`, which decides the connection's lines itself.
 */
export function writeHitHead(res: ServerResponse, entry: object, head: HitHead, body: Buffer): void {
  const keepAlive = keepAliveLines(res as unknown as RawResponse);
  if (keepAlive === null) {
    res.writeHead(200, headerList(head));
    res.end(body);
    return;
  }
  const lines = entryLines(entry, head);
  let cors = '';
  for (let i = 0; i < head.cors.length; i += 2) cors += `${head.cors[i]}: ${head.cors[i + 1]}\r\n`;
  const raw = res as unknown as RawResponse;
  raw._header = `HTTP/1.1 200 OK\r\n${lines.before}${cors}x-request-id: ${head.requestId}\r\ncache-control: ${head.cacheControl}\r\nage: ${head.age}\r\n${lines.after}${dateLine()}${keepAlive}\r\n`;
  raw._headerSent = false;
  res.end(body);
}

/** The same headers as name and value pairs, for `writeHead`. */
function headerList(head: HitHead): string[] {
  const headers: string[] = ['content-type', `${head.mediaType}; charset=utf-8`];
  for (const name in head.stored) headers.push(name.toLowerCase(), head.stored[name]!);
  headers.push('content-length', String(head.length));
  for (const value of head.cors) headers.push(value);
  headers.push('x-request-id', head.requestId, 'cache-control', head.cacheControl, 'age', String(head.age), 'vary', head.vary, 'etag', head.etag);
  if (head.encoded) headers.push('content-encoding', head.encoded);
  return headers;
}

function entryLines(entry: object, head: HitHead): Lines {
  let held = linesOf.get(entry);
  if (!held) linesOf.set(entry, (held = []));
  const at = (head.mediaType === 'application/json' ? 0 : CODINGS.length) + CODINGS.indexOf(head.encoded);
  let lines = held[at];
  if (lines?.vary !== head.vary) {
    let before = `content-type: ${head.mediaType}; charset=utf-8\r\n`;
    for (const name in head.stored) before += `${name.toLowerCase()}: ${head.stored[name]}\r\n`;
    before += `content-length: ${head.length}\r\n`;
    const after = `vary: ${head.vary}\r\netag: ${head.etag}\r\n${head.encoded ? `content-encoding: ${head.encoded}\r\n` : ''}`;
    held[at] = lines = { before, after, vary: head.vary };
  }
  return lines;
}

/** The fields of Node's ServerResponse (`_http_outgoing`, `_http_server`) that `writeHead` reads and sets for a plain response. */
interface RawResponse {
  _header: string | null;
  _headerSent: boolean;
  shouldKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
  _removedConnection: boolean;
  sendDate: boolean;
  _expect_continue: boolean;
  _hasBody: boolean;
  chunkedEncoding: boolean;
  _keepAliveTimeout: number;
  _defaultKeepAlive: boolean;
  _maxRequestsPerSocket: number | undefined;
}

/**
 * The connection lines `writeHead` would add to a 200 with a length on this response (`Connection:
 * keep-alive` and its `Keep-Alive` timeout), or null when the response is not in the plain keep-alive
 * state those lines stand for.
 */
function keepAliveLines(res: RawResponse): string | null {
  if (res._header !== null || res.shouldKeepAlive !== true || res.maxRequestsOnConnectionReached !== false || res._removedConnection !== false) return null;
  if (res.sendDate !== true || res._expect_continue !== false || res._hasBody !== true || res.chunkedEncoding !== false || typeof res._keepAliveTimeout !== 'number') return null;
  if (!res._keepAliveTimeout || !res._defaultKeepAlive) return 'Connection: keep-alive\r\n';
  const max = ~~(res._maxRequestsPerSocket ?? 0) > 0 ? `, max=${res._maxRequestsPerSocket}` : '';
  return `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(res._keepAliveTimeout / 1000)}${max}\r\n`;
}

let dateSecond = -1;
let date = '';

/** Node's Date line (the time to the second), made once a second. */
function dateLine(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    date = `Date: ${new Date(second * 1000).toUTCString()}\r\n`;
  }
  return date;
}
