import { parse, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheTtls } from '../config.js';
import { sha256 } from '../hashing.js';
import { documentPolicy, type CachePolicy } from './policy.js';
import { heldLru } from '../held.js';

/** Heap the remembered cache policies may hold: their documents' texts, two bytes a character, and the policy. */
const POLICY_CACHE_BYTES = 4 * 1024 * 1024;
/**
 * Documents of one length remembered at once: a text is found by comparing it with those of its length,
 * so this bounds the characters compared per lookup (a newer one of a full length replaces the oldest).
 */
const SAME_LENGTH_DOCUMENTS = 8;

/** One document's remembered policy, and the hash of its text (made on its first cacheable request). */
export interface KnownDocument {
  readonly text: string;
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
  let serial = 0;
  // A request's text is a new string: a Map keyed by it hashes every character of it on each lookup
  // (a hit's largest step after the socket, bench/PHASES.md "cached hit"), where comparing it with the
  // few texts of its length stops at the first difference. The LRU, keyed by a serial, bounds and orders them.
  const byLength = new Map<number, (KnownDocument & { serial: number })[]>();
  const policies = heldLru(
    'document_policies',
    new LRUCache<number, KnownDocument & { serial: number }>({
      max: options.maxDocuments,
      maxSize: POLICY_CACHE_BYTES,
      sizeCalculation: (known) => 2 * known.text.length + 512,
      dispose: (known) => {
        const same = byLength.get(known.text.length);
        const at = same?.indexOf(known) ?? -1;
        if (at >= 0) same!.splice(at, 1);
        if (same?.length === 0) byLength.delete(known.text.length);
      },
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
      const same = byLength.get(query.length);
      let known = same?.find((candidate) => candidate.text === query);
      if (known) {
        // Keeps its place in the LRU's order as a lookup by text would.
        policies.get(known.serial);
        return known;
      }
      if (!options.admissible(query)) return null;
      let policy: CachePolicy | null = null;
      try {
        policy = schema ? documentPolicy(schema, parse(query), options.ttlMs) : null;
      } catch {
        // Unparsable: validation answers it; nothing to cache.
      }
      known = { text: query, policy, serial: ++serial };
      if (same && same.length >= SAME_LENGTH_DOCUMENTS) policies.delete(same[0]!.serial);
      policies.set(known.serial, known);
      // A text larger than the whole bound is not kept by the LRU: it is not indexed either.
      if (policies.has(known.serial)) {
        const list = byLength.get(query.length);
        if (list) list.push(known);
        else byLength.set(query.length, [known]);
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

