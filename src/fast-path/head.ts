import type { ServerResponse } from 'node:http';
import type { MediaType } from './hit-request.js';

/** What a hit's 200 carries besides its body. */
export interface HitHead {
  mediaType: MediaType;
  /** The headers the entry was stored with (`extensions.http.headers`: Last-Modified). */
  stored: Record<string, string>;
  /** The CORS headers for the request's origin, as name and value pairs (none: empty). */
  cors: readonly string[];
  requestId: string;
  cacheControl: string;
  age: number;
  vary: string;
  etag: string;
  encoded: string | null;
}

/**
 * Writes a hit's 200, its headers in the order Yoga's pipeline sets them (content type, the stored
 * Last-Modified, length, CORS, request id, Cache-Control, Age, Vary, ETag, coding), through Node's own
 * `writeHead`, which adds the Date and connection lines as it does for the pipeline's answers.
 */
export function writeHitHead(res: ServerResponse, head: HitHead, body: Buffer): void {
  const headers: string[] = ['content-type', `${head.mediaType}; charset=utf-8`];
  for (const name in head.stored) headers.push(name.toLowerCase(), head.stored[name]!);
  headers.push('content-length', String(body.length));
  for (const value of head.cors) headers.push(value);
  headers.push('x-request-id', head.requestId, 'cache-control', head.cacheControl, 'age', String(head.age), 'vary', head.vary, 'etag', head.etag);
  if (head.encoded) headers.push('content-encoding', head.encoded);
  res.writeHead(200, headers);
  res.end(body);
}
