import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

/** Answers smaller than this go uncompressed: the encoding's framing would eat most of the gain. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The codings the gateway speaks, in its order of preference at equal quality. */
type Coding = 'br' | 'gzip';
const CODINGS: readonly Coding[] = ['br', 'gzip'];

/** What one answer's bytes become on the wire; kept beside a cached result so each is made once. */
export interface WireForms {
  etag?: string;
  /** Bytes before encoding. */
  size?: number;
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
}

/**
 * Where a result held in the response cache keeps its wire forms (strong ETag, compressed bytes). The
 * response cache attaches one holder per stored entry; every hit of that entry shares it, so a cached
 * answer is hashed and compressed once, not on every request.
 */
export const WIRE_FORMS = Symbol.for('gateway.wireForms');

/**
 * The HTTP representation of JSON answers (`application/json`, `application/graphql-response+json`):
 *
 * - **Compression**: brotli or gzip by the request's `Accept-Encoding` (q-values honoured; brotli wins a
 *   tie), for bodies of at least 1 KiB, with `Vary: Accept-Encoding`. Compressed off the event loop
 *   (zlib's thread pool) at brotli quality 5 / gzip level 6: near their best ratio on JSON for a
 *   fraction of brotli 11's time. Event streams (SSE, `multipart/mixed`) are sent as they are: each
 *   part must leave at once, and a part of a few hundred bytes gains little.
 * - **Conditional requests (RFC 9110)**: an answer the cache headers call cacheable (`Cache-Control`
 *   other than `no-store`) carries a strong `ETag`, a hash of its own bytes before encoding (nothing
 *   of the caller in it). A GET or HEAD whose `If-None-Match` lists that tag (weak comparison: `W/`
 *   ignored; `*` matches) gets `304` with `ETag`, `Cache-Control`, `Last-Modified` and `Vary`. A tag
 *   of another query, another caller or an older answer does not match: the answer is sent whole.
 *
 * Runs last among the response hooks, after the response cache has written `Cache-Control`.
 */
export function useWireEncoding(): Plugin {
  const forms = new WeakMap<Request, WireForms>();
  return {
    onResultProcess({ request, result }) {
      const held = (result as { [WIRE_FORMS]?: WireForms } | null)?.[WIRE_FORMS];
      if (held) forms.set(request, held);
    },
    async onResponse(payload) {
      const { request, response, fetchAPI } = payload;
      const setResponse = (next: Response) => payload.setResponse(next);
      if (response.status !== 200 || response.bodyUsed || !isJson(response.headers.get('content-type'))) return;
      const held = forms.get(request) ?? {};
      const { headers } = response;
      headers.append('vary', 'Accept-Encoding');
      const cacheControl = headers.get('cache-control');
      const tagged = cacheControl !== null && !/\bno-store\b/i.test(cacheControl);
      const coding = negotiate(request.headers.get('accept-encoding'));
      if (!tagged && !coding) return;
      // The body is read only when this answer's tag or size is not known yet, or it is compressed now.
      let body: Buffer | null = null;
      const read = async () => (body ??= Buffer.from(await response.text()));
      if (tagged) {
        if (held.etag === undefined) {
          const bytes = await read();
          [held.etag, held.size] = [strongTag(bytes), bytes.length];
        }
        headers.set('etag', held.etag);
        if ((request.method === 'GET' || request.method === 'HEAD') && matches(request.headers.get('if-none-match'), held.etag)) {
          const notModified = new fetchAPI.Headers();
          for (const name of ['etag', 'cache-control', 'last-modified', 'vary', 'x-request-id']) {
            const value = headers.get(name);
            if (value !== null) notModified.set(name, value);
          }
          setResponse(new fetchAPI.Response(null, { status: 304, headers: notModified }));
          return;
        }
      } else {
        headers.delete('etag');
      }
      if (coding && (held.size ??= (await read()).length) >= COMPRESSION_THRESHOLD_BYTES) {
        const encoded = await (held[coding] ??= encoder.encode(coding, await read()));
        const compressed = new fetchAPI.Headers(headers);
        compressed.set('content-encoding', coding);
        compressed.set('content-length', String(encoded.length));
        setResponse(new fetchAPI.Response(encoded as Uint8Array<ArrayBuffer>, { status: 200, headers: compressed }));
        return;
      }
      // Read for its tag: sent as it was.
      if (body) setResponse(new fetchAPI.Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers }));
    },
  };
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/(graphql-response\+)?json\b/i.test(contentType);
}

/** The compressor (an object, so a test can count how often a held answer is compressed). */
export const encoder = { encode };

function encode(coding: Coding, body: Buffer): Promise<Buffer> {
  return coding === 'br'
    ? brotliAsync(body, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
      })
    : gzipAsync(body, { level: 6 });
}

/** A strong entity tag: 128 bits of the SHA-256 of the bytes. */
export function strongTag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
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

/** Whether `If-None-Match` names this tag (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, '') === opaque);
}
