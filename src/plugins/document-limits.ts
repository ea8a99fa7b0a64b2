import type { DocumentNode, Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { gatewayError } from '../errors.js';
import { heldLru } from '../held.js';

/** Largest GraphQL document accepted, in UTF-8 bytes: far above real operations (under 2 KB), far below the body limit. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/**
 * Deepest nesting of `{`, `[` and `(` accepted. The parser recurses once (several frames) per level and
 * overflows the stack some thousands deep; real operations nest under 30 (12 levels of fields, armor's
 * `maxDepth`, with inline fragments and input objects).
 */
export const MAX_DOCUMENT_NESTING = 64;

export interface DocumentLimitsOptions {
  /** Largest document, in UTF-8 bytes; a larger one is refused before it is parsed or cached. Default `MAX_DOCUMENT_BYTES` (64 KiB). */
  maxBytes?: number;
  /** Deepest nesting of brackets of any kind (selection sets, lists, input objects, arguments). Default `MAX_DOCUMENT_NESTING` (64). */
  maxNesting?: number;
  /** Whether a text already passed these limits (it is in the parse cache, which holds no refused one): it is not measured again. */
  passed?: (source: string) => boolean;
}

/**
 * Refuses, before the parser sees it, a document the parser could not handle safely: one over
 * `maxBytes` (HTTP 413, `QUERY_TOO_COMPLEX`), or one nesting brackets deeper than `maxNesting` (400,
 * `QUERY_TOO_COMPLEX`): a literal `[[[…]]]` or an input object thousands deep overflows the recursive
 * parser's stack, and armor's `maxDepth` only counts fields, after parsing. Runs on parse, so it covers HTTP and WebSocket alike,
 * and before Yoga's parse cache, so a refused document is never cached. A comment makes any text a
 * new cache key without adding tokens: the token limit alone does not bound what the caches hold.
 */
export function useDocumentLimits(options: DocumentLimitsOptions = {}): Plugin {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  const maxNesting = options.maxNesting ?? MAX_DOCUMENT_NESTING;
  return {
    onParse({ params }) {
      const source: string = typeof params.source === 'string' ? params.source : (params.source as Source).body;
      if (options.passed?.(source)) return;
      // Length in UTF-16 units never exceeds the UTF-8 length: only a borderline text is measured.
      if (source.length > maxBytes || (source.length * 3 > maxBytes && Buffer.byteLength(source) > maxBytes)) {
        throw gatewayError(`The document is larger than ${maxBytes} bytes.`, 'QUERY_TOO_COMPLEX', { http: { status: 413 } });
      }
      if (nestsDeeperThan(source, maxNesting)) {
        throw gatewayError(`The document nests brackets more than ${maxNesting} deep.`, 'QUERY_TOO_COMPLEX', { http: { status: 400 } });
      }
    },
    // Validation errors are cached with their document (Yoga's validation cache).
    onValidate: () => ({ result }) => releaseStacks(result),
  };
}

/**
 * An error's stack trace is kept structured until first read, and its frames hold their receivers and
 * closures alive: a validation error holds the validator's visitors and contexts, about 90 KB. Cached
 * errors (validation results, parse errors) have their stacks formatted, which lets all that go.
 */
function releaseStacks(errors: unknown): void {
  if (!Array.isArray(errors)) return;
  for (const error of errors) if (error instanceof Error) void error.stack;
}

/** The character codes the scan looks for (`charCodeAt` answers numbers: plain numbers, no enum). */
const Char = {
  Newline: 10,
  Return: 13,
  Quote: 34,
  Hash: 35,
  OpenParen: 40,
  CloseParen: 41,
  OpenBracket: 91,
  Backslash: 92,
  CloseBracket: 93,
  OpenBrace: 123,
  CloseBrace: 125,
} as const;

/**
 * Whether `{`, `[` and `(` nest deeper than `limit` in the document's text, outside strings, block
 * strings and comments. One pass, no allocation: it sees what the parser would recurse into.
 */
export function nestsDeeperThan(source: string, limit: number): boolean {
  let depth = 0;
  const length = source.length;
  for (let i = 0; i < length; i++) {
    const c = source.charCodeAt(i);
    if (c === Char.OpenBrace || c === Char.OpenBracket || c === Char.OpenParen) {
      if (++depth > limit) return true;
    } else if (c === Char.CloseBrace || c === Char.CloseBracket || c === Char.CloseParen) {
      if (depth > 0) depth--;
    } else if (c === Char.Hash) {
      while (i + 1 < length && source.charCodeAt(i + 1) !== Char.Newline && source.charCodeAt(i + 1) !== Char.Return) i++;
    } else if (c === Char.Quote) {
      i = source.startsWith('""', i + 1) ? endOfBlockString(source, i + 3) : endOfString(source, i + 1);
    }
  }
  return false;
}

/** Index of the last quote of the block string whose text starts at `i` (an escaped \""" does not end it). */
function endOfBlockString(source: string, i: number): number {
  for (; i < source.length; i++) {
    if (source.charCodeAt(i) === Char.Backslash && source.startsWith('"""', i + 1)) i += 3;
    else if (source.startsWith('"""', i)) return i + 2;
  }
  return source.length;
}

/** Index of the quote that ends the string whose text starts at `i`, or of the line's end (where the parser stops too). */
function endOfString(source: string, i: number): number {
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === Char.Backslash) i++;
    else if (c === Char.Quote || c === Char.Newline || c === Char.Return) return i;
  }
  return source.length;
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
 * What else a cached document keeps alive, by WeakMaps keyed on it: its validation result, its query
 * cost cache, and the plugins' per-document entries. Measured with `npm run memory -- documents`.
 */
const BYTES_PER_DOCUMENT = 4 * 1024;
/**
 * What a document compiled by graphql-jit adds (its generated functions and their code), per token and
 * at least: compiled only from a document's second run (`plugins/jit.ts`), then charged here.
 */
const COMPILED_BYTES_PER_TOKEN = 3 * 1024;
const COMPILED_BYTES_MIN = 96 * 1024;

/**
 * Yoga's parse and validation caches (the `parserAndValidationCache` option), bounded by bytes rather
 * than entries: Yoga's default holds 1,024 documents and 1,024 parse errors of any size. Validation
 * results are kept per document (a WeakMap, validated-documents.ts), so they go when their document goes.
 */
export function boundedParseCache(options: ParseCacheOptions = {}) {
  const ttl = options.ttlMs ?? 60 * 60 * 1000;
  const compiled = new WeakSet<DocumentNode>();
  const documentCache = heldLru('parsed_documents', new LRUCache<string, DocumentNode>({
    maxSize: options.maxDocumentBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (document, source) => {
      const tokens = tokenCount(document);
      const jit = compiled.has(document) ? Math.max(COMPILED_BYTES_MIN, COMPILED_BYTES_PER_TOKEN * tokens) : 0;
      return textBytes(source) + BYTES_PER_DOCUMENT + BYTES_PER_TOKEN * tokens + jit;
    },
    ttl,
    // Read on every request: a clock read per lookup costs less than lru-cache's timer per millisecond of its clock cache.
    ttlResolution: 0,
  }));
  const errorCache = heldLru('document_errors', new LRUCache<string, object>({
    maxSize: options.maxErrorBytes ?? 4 * 1024 * 1024,
    // The error keeps its source (the same text), a message and a formatted stack of its own.
    sizeCalculation: (error, source) => (releaseStacks([error]), textBytes(source) + 4096),
    ttl,
    ttlResolution: 0,
  }));
  return {
    documentCache,
    errorCache,
    // Each document's validation result is kept with it by plugins/validated-documents.ts, with every rule the plugins add.
    validationCache: false,
    /** Counts what compiling `document` added to it, if it is cached (it may then push older documents out). */
    compiled(document: DocumentNode): void {
      const source = document.loc?.source.body;
      if (source === undefined || compiled.has(document) || documentCache.peek(source) !== document) return;
      compiled.add(document);
      documentCache.set(source, document, { noUpdateTTL: true });
    },
  };
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
