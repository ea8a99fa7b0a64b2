import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { gatewayError } from '../errors.js';

/** Largest GraphQL document accepted, in UTF-8 bytes: far above real operations (under 2 KB), far below the body limit. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

export interface DocumentLimitsOptions {
  /** Largest document, in UTF-8 bytes; a larger one is refused before it is parsed or cached. Default `MAX_DOCUMENT_BYTES` (64 KiB). */
  maxBytes?: number;
}

/**
 * Refuses, before the parser sees it, a document the parser could not handle safely: one over
 * `maxBytes` (HTTP 413, `QUERY_TOO_COMPLEX`). Runs on parse, so it covers HTTP and WebSocket alike,
 * and before Yoga's parse cache, so a refused document is never cached. A comment makes any text a
 * new cache key without adding tokens: the token limit alone does not bound what the caches hold.
 */
export function useDocumentLimits(options: DocumentLimitsOptions = {}): Plugin {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  return {
    onParse({ params }) {
      const source = typeof params.source === 'string' ? params.source : params.source.body;
      // Length in UTF-16 units never exceeds the UTF-8 length: only a borderline text is measured.
      if (source.length > maxBytes || (source.length * 3 > maxBytes && Buffer.byteLength(source) > maxBytes)) {
        throw gatewayError(`The document is larger than ${maxBytes} bytes.`, 'QUERY_TOO_COMPLEX', { http: { status: 413 } });
      }
    },
  };
}

export interface ParseCacheOptions {
  /** Estimated heap held by cached documents, in bytes. Default 32 MiB. */
  maxDocumentBytes?: number;
  /** Bytes held by cached parse errors. Default 4 MiB. */
  maxErrorBytes?: number;
  /** How long an entry lives. Default one hour (Yoga's own). */
  ttlMs?: number;
}

/**
 * Heap a parsed document holds per token (its AST node, location and token objects), measured with
 * `scripts/parse-cache-memory.ts`: 250 bytes at worst (dense literals), plus the source text itself.
 */
const BYTES_PER_TOKEN = 300;

/**
 * Yoga's parse and validation caches (the `parserAndValidationCache` option), bounded by bytes rather
 * than entries: Yoga's default holds 1,024 documents and 1,024 parse errors of any size. Validation
 * results are kept per document (a WeakMap in Yoga), so they go when their document goes.
 */
export function boundedParseCache(options: ParseCacheOptions = {}) {
  const ttl = options.ttlMs ?? 60 * 60 * 1000;
  const documentCache = new LRUCache<string, DocumentNode>({
    maxSize: options.maxDocumentBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (document, source) => textBytes(source) + BYTES_PER_TOKEN * tokenCount(document),
    ttl,
  });
  const errorCache = new LRUCache<string, object>({
    maxSize: options.maxErrorBytes ?? 4 * 1024 * 1024,
    // The error keeps its source (the same text) and a message of its own.
    sizeCalculation: (_error, source) => textBytes(source) + 1024,
    ttl,
  });
  return { documentCache, errorCache, validationCache: true };
}

/** Heap bytes of a string, counting two per unit (V8 stores non-Latin-1 text as UTF-16). */
function textBytes(text: string): number {
  return text.length * 2;
}

/** Tokens the document's AST keeps alive (graphql-js links them all, comments included, from its location). */
function tokenCount(document: DocumentNode): number {
  let count = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) count++;
  return count;
}
