import { parse, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheTtls } from '../config.js';
import { sha256 } from '../hashing.js';
import { documentPolicy, type CachePolicy } from './policy.js';
import { heldLru } from '../held.js';

/** Heap the remembered cache policies may hold: their documents' texts, two bytes a character, and the policy. */
const POLICY_CACHE_BYTES = 4 * 1024 * 1024;

/** One document's remembered policy, and the hash of its text (made on its first cacheable request). */
export interface KnownDocument {
  policy: CachePolicy | null;
  documentHash?: string;
  /** The key's hash for this document without an operation name or variables (a screen's usual request), made once. */
  plainHash?: string;
}

export interface DocumentPoliciesOptions {
  ttlMs: Readonly<ResponseCacheTtls>;
  /** Distinct documents remembered. */
  maxDocuments: number;
  /** Whether a text may be parsed at all: one the gateway refuses at parse is neither parsed here first nor remembered. */
  admissible: (query: string) => boolean;
}

/**
 * The cache policy of each query text (`policy.ts`), remembered per text, and the cache keys made from
 * it. Bounded by the bytes of the texts it keys on (up to 64 KiB each), not only by their count. A key
 * is a hash of the document's hash, the operation name and the variables: the whole document is not
 * hashed on every request.
 */
export function createDocumentPolicies(options: DocumentPoliciesOptions) {
  let schema: GraphQLSchema | undefined;
  const policies = heldLru(
    'document_policies',
    new LRUCache<string, KnownDocument>({
      max: options.maxDocuments,
      maxSize: POLICY_CACHE_BYTES,
      sizeCalculation: (_policy, query) => 2 * query.length + 512,
    }),
  );

  return {
    /** A new schema forgets every policy read from the old one. */
    useSchema(next: GraphQLSchema): void {
      if (next !== schema) policies.clear();
      schema = next;
    },

    /** The document's remembered policy (and hash): one lookup a request; null for a text the gateway refuses. */
    policyOf(query: string): KnownDocument | null {
      let known = policies.get(query);
      if (!known) {
        if (!options.admissible(query)) return null;
        let policy: CachePolicy | null = null;
        try {
          policy = schema ? documentPolicy(schema, parse(query), options.ttlMs) : null;
        } catch {
          // Unparsable: validation answers it; nothing to cache.
        }
        policies.set(query, (known = { policy }));
      }
      return known;
    },

    /** `<owner>.<hash>`: the document's hash (kept beside its policy), the operation name and the variables. */
    keyOf(owner: string, document: KnownDocument, query: string, operationName: string | null | undefined, variables: unknown): string {
      const documentHash = (document.documentHash ??= sha256(query, 'hex'));
      const json = JSON.stringify(variables ?? {});
      const of = () => sha256(`${documentHash}|${operationName ?? ''}|${json}`, 'hex');
      return `${owner}.${!operationName && json === '{}' ? (document.plainHash ??= of()) : of()}`;
    },
  };
}

