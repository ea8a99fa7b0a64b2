import type { ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { processRegularResult, type FetchAPI } from 'graphql-yoga';
import type { MediaType } from '../fast-path/hit-request.js';
import { corsHeaders, type CorsOptions } from '../fast-path/hits.js';
import type { CompressionSlots } from '../plugins/compression.js';
import { wireAnswer, type WireAnswer } from '../plugins/wire-encoding.js';

/** What every answer of the direct path carries besides its body, decided before it is written. */
export interface AnswerHead {
  mediaType: MediaType;
  requestId: string;
  /** The answer's `Cache-Control` (`no-store`, or the policy of a kept answer); null when the response cache is off. */
  cacheControl: string | null;
  /** CORS options for the request's origin, when CORS is on and the origin is listed. */
  cors: CorsOptions | false;
  /** Whether CORS is on (`Vary: Origin` on every answer). */
  varyOrigin: boolean;
  method: string;
  header: (name: string) => string | null;
}

/** Yoga's result processing with a Response that only keeps what it is given: the same status, headers and body text, no Response made. */
class Captured {
  constructor(
    readonly body: string,
    readonly init: { status: number; headers: Record<string, string> },
  ) {}
}
const CAPTURE = { Response: Captured } as unknown as FetchAPI;

/**
 * Writes a result as Yoga's pipeline answers it over HTTP, in one `writeHead` and one `end`: its status
 * and body as Yoga's JSON result processor makes them (`processRegularResult`: the status an error's
 * `extensions.http` asks for, the internals left out, the compiled serializer), then the headers the
 * plugins' response hooks add, in their order (CORS, `X-Request-Id`, `Cache-Control`, `Vary`), and for a
 * 200 the wire encoding's tag, coding and 304 (plugins/wire-encoding.ts `wireAnswer`).
 */
export function writeResult(res: ServerResponse, result: ExecutionResult, head: AnswerHead, slots: CompressionSlots): number | Promise<number> {
  const processed = processRegularResult(result, CAPTURE, head.mediaType) as unknown as Captured;
  const { status } = processed.init;
  const ok = status === 200;
  // Yoga sends a refusal's headers as its result processor named them; the wire encoding's 200s in lower case.
  const headers: string[] = [];
  for (const name in processed.init.headers) headers.push(ok ? name.toLowerCase() : name, processed.init.headers[name]!);
  const vary = ok ? (head.varyOrigin ? 'Origin, Accept-Encoding' : 'Accept-Encoding') : head.varyOrigin ? 'Origin' : null;
  if (!ok) return send(res, status, withTail(headers, head, vary, Buffer.byteLength(processed.body)), processed.body);
  const wire = wireAnswer(slots, processed.body, head.cacheControl, head.header, head.method) as WireAnswer | null;
  if (wire === null) return send(res, 200, withTail(headers, head, vary, Buffer.byteLength(processed.body)), processed.body);
  if (wire.notModified) return writeNotModified(res, wire.etag!, headers, head, vary!);
  if (typeof wire.body === 'string') return send(res, 200, withTail(headers, head, vary, Buffer.byteLength(wire.body), wire.etag), wire.body);
  return wire.body.then((bytes) => send(res, 200, withTail(headers, head, vary, bytes.length, wire.etag, wire.coding), bytes));
}

/** The headers after the result processor's, appended in the plugins' order; one array per answer, no closure. */
function withTail(headers: string[], head: AnswerHead, vary: string | null, length: number, etag?: string, coding?: string): string[] {
  headers.push('content-length', String(length));
  if (head.cors) for (const value of corsHeaders(head.cors)) headers.push(value);
  headers.push('x-request-id', head.requestId);
  if (head.cacheControl !== null) headers.push('cache-control', head.cacheControl);
  if (vary !== null) headers.push('vary', vary);
  if (etag !== undefined) headers.push('etag', etag);
  if (coding !== undefined) headers.push('content-encoding', coding);
  return headers;
}

/** Writes the answer; its status. */
function send(res: ServerResponse, status: number, headers: string[], body: string | Buffer): number {
  res.writeHead(status, headers);
  res.end(body);
  return status;
}

/** The 304 with the headers the wire encoding keeps of the answer it stands for (etag.ts). */
function writeNotModified(res: ServerResponse, etag: string, processed: string[], head: AnswerHead, vary: string): number {
  const at = processed.indexOf('last-modified');
  const headers = ['etag', etag];
  if (head.cacheControl !== null) headers.push('cache-control', head.cacheControl);
  if (at >= 0 && at % 2 === 0) headers.push('last-modified', processed[at + 1]!);
  headers.push('vary', vary, 'x-request-id', head.requestId);
  return send(res, 304, headers, '');
}
