import type { Plugin } from 'graphql-yoga';
import { matches, notModified, representationTag, strongTag, taggable, WIRE_FORMS, type WireForms } from '../etag.js';
import { compress, compressionEffort, CompressionSlots, type Coding, type CompressionEffort } from './compression.js';

/** Answers smaller than this go uncompressed: the encoding's framing would eat most of the gain. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** The codings the gateway speaks, in its order of preference at equal quality. */
const CODINGS: readonly Coding[] = ['br', 'gzip'];

/**
 * The HTTP representation of JSON answers (`application/json`, `application/graphql-response+json`):
 *
 * - **Compression**: brotli or gzip by the request's `Accept-Encoding` (q-values honoured; brotli wins a
 *   tie), for bodies of at least 1 KiB, with `Vary: Accept-Encoding`. Compressed off the event loop
 *   (zlib's thread pool), with an effort and a window fitted to the answer's size and reuse, and at most
 *   `maxConcurrentCompressions` at once: past that, an answer with no compressed form yet is sent as it
 *   is (`plugins/compression.ts`). Event streams (SSE, `multipart/mixed`) are sent as they are: each
 *   part must leave at once, and a part of a few hundred bytes gains little.
 * - **Conditional requests**: a cacheable answer's `ETag`, and `304` for a client that holds it
 *   (`etag.ts`), from the same bytes the compression reads.
 *
 * Runs last among the response hooks, after the response cache has written `Cache-Control`.
 */
export function useWireEncoding(options: { maxConcurrentCompressions?: number; slots?: CompressionSlots } = {}): Plugin {
  // Shared with the direct path (src/direct/) when given: one cap on the compressions of both.
  const slots = options.slots ?? new CompressionSlots(options.maxConcurrentCompressions);
  const forms = new WeakMap<Request, WireForms>();
  return {
    onResultProcess({ request, result }) {
      const held = (result as { [WIRE_FORMS]?: WireForms } | null)?.[WIRE_FORMS];
      if (held) forms.set(request, held);
    },
    async onResponse(payload) {
      const { request, response, fetchAPI } = payload;
      if (response.status !== 200 || response.bodyUsed || !isJson(response.headers.get('content-type'))) return;
      const held = forms.get(request) ?? {};
      const { headers } = response;
      headers.append('vary', 'Accept-Encoding');
      const header = (name: string) => request.headers.get(name);
      const cacheControl = headers.get('cache-control');
      // The body is read only when this answer's tag or size is not known yet, or it is compressed now.
      let body: string | undefined;
      let wire = wireAnswer(slots, undefined, cacheControl, header, request.method, held);
      if (wire === READ_BODY) wire = wireAnswer(slots, (body = await response.text()), cacheControl, header, request.method, held);
      if (wire === null || wire === READ_BODY) return;
      if (wire.etag === undefined) headers.delete('etag');
      else headers.set('etag', wire.etag);
      if (wire.notModified) {
        // The 304 keeps the headers etag.ts names of the answer it stands for.
        payload.setResponse(notModified(request, headers, wire.etag!, fetchAPI)!);
        return;
      }
      if (wire.coding) {
        const bytes = await (wire.body as Promise<Buffer>);
        const compressed = new fetchAPI.Headers(headers);
        compressed.set('content-encoding', wire.coding);
        compressed.set('content-length', String(bytes.length));
        payload.setResponse(new fetchAPI.Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: compressed }));
        return;
      }
      // Read for its tag: sent as it was.
      if (body !== undefined) payload.setResponse(new fetchAPI.Response(body, { status: 200, headers }));
    },
  };
}

/** One JSON 200 answer as it goes on the wire: its tag, its coding and body (compressed off the loop), or a 304. */
export interface WireAnswer {
  /** The tag of the representation sent (or that the 304 stands for); none for an answer that may not be kept. */
  etag?: string;
  /** Set with `body` the compressed bytes; otherwise `body` is the text as given. */
  coding?: Coding;
  body: string | Promise<Buffer>;
  notModified?: boolean;
}

/** `wireAnswer`'s ask for the answer's text, when it needs it and was given none. */
export const READ_BODY = Symbol('read body');

/**
 * The wire encoding's decisions for one JSON 200 answer, for the plugin and the direct path (src/direct/)
 * alike: tagged when `cacheControl` allows, compressed by `Accept-Encoding` from 1 KiB in a free slot
 * (the held form reused), 304 for a GET or HEAD whose `If-None-Match` names the tag of the
 * representation it would get. Null: sent as it is, untouched. `text` may be left out while `held`
 * (a cached answer's forms, shared by its hits) knows what is needed: then `READ_BODY` asks for it.
 */
export function wireAnswer(
  slots: CompressionSlots,
  text: string | undefined,
  cacheControl: string | null,
  header: (name: string) => string | null,
  method: string,
  held: WireForms = {},
): WireAnswer | null | typeof READ_BODY {
  const tagged = taggable(cacheControl);
  const coding = negotiate(header('accept-encoding'));
  if (!tagged && !coding) return null;
  if ((tagged && held.etag === undefined) || (coding && held.size === undefined)) {
    if (text === undefined) return READ_BODY;
    held.size ??= Buffer.byteLength(text);
    if (tagged) held.etag ??= strongTag(text);
  }
  const encoded = coding && held.size! >= COMPRESSION_THRESHOLD_BYTES ? coding : null;
  const identityTag = tagged ? held.etag : undefined;
  // Each representation (identity, br, gzip) has its own tag: a 304 stands for the body this request would get.
  const tag = identityTag && representationTag(identityTag, encoded);
  if (tag && (method === 'GET' || method === 'HEAD') && matches(header('if-none-match'), tag)) return { etag: tag, body: '', notModified: true };
  if (encoded && !held[encoded] && text === undefined) return READ_BODY;
  // A cacheable answer is held by the response cache (compressed once for all its hits) or by the client's: worth more effort than a one-off.
  const pending = encoded ? (held[encoded] ?? startCompression(slots, held, encoded, text!, tagged)) : null;
  if (pending) return { ...(tag ? { etag: tag } : {}), coding: encoded!, body: pending };
  // Uncompressed (small, not asked, or every slot taken): identity's own tag.
  return { ...(identityTag ? { etag: identityTag } : {}), body: text ?? '' };
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/(graphql-response\+)?json\b/i.test(contentType);
}

/** The compressor (an object, so a test can count how often a held answer is compressed, and with what effort). */
export const encoder = { encode: (coding: Coding, body: Buffer, effort: CompressionEffort): Promise<Buffer> => compress(body, { ...effort, coding }) };

/**
 * Starts compressing `text` in a free slot, kept in `held` (a cached answer's forms, shared by its hits);
 * null when every slot is taken: the answer then goes as it is and `held` stays without that form.
 */
function startCompression(slots: CompressionSlots, held: WireForms, coding: Coding, text: string, reused: boolean): Promise<Buffer> | null {
  const pending = slots.tryStart((bytesOf) => {
    const body = bytesOf(text);
    return encoder.encode(coding, body, compressionEffort(coding, body.length, reused));
  });
  if (pending) held[coding] = pending;
  return pending;
}

/**
 * The coding to answer in, from `Accept-Encoding` (RFC 9110 §12.5.3): the supported coding of highest
 * quality above 0, `*` standing for any not named; brotli before gzip at equal quality. `null`: identity.
 */
export function negotiate(header: string | null): Coding | null {
  if (!header) return null;
  const quality = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    quality.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  let best: Coding | null = null;
  let bestQ = 0;
  for (const coding of CODINGS) {
    const q = quality.get(coding) ?? quality.get('*') ?? 0;
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  return best;
}
