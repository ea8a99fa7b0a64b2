import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../config.js';

export interface TrustedDocumentsOptions {
  /** Path of a JSON manifest `{ "<hash>": "<document>" }` (GraphQL Code Generator's client preset and the Relay compiler emit one). */
  manifestPath: string | null;
  /** Whether documents that are not in the manifest run. Only consulted when a manifest is set. */
  allowArbitraryDocuments: boolean;
  /** Automatic persisted queries: a client registers a document under its sha256 hash, then sends only the hash. */
  apq: boolean;
  /** Documents registered by APQ kept in memory (entries). Default 1 000. */
  apqMaxEntries?: number;
}

/**
 * Trusted documents and APQ, with Yoga's own plugins. A persisted document is named by `documentId` (in
 * the POST body or as a GET query parameter) or by the APQ form `extensions.persistedQuery.sha256Hash`.
 * With a manifest, lookups go to it first, then to the APQ store; without one, APQ alone serves hashes.
 */
export function useTrustedDocuments(options: TrustedDocumentsOptions): Plugin[] {
  const manifest = options.manifestPath ? loadManifest(options.manifestPath) : null;
  const registered = options.apq ? new LRUCache<string, string>({ max: options.apqMaxEntries ?? 1_000 }) : null;
  const plugins: Plugin[] = [];

  if (manifest) {
    plugins.push(
      usePersistedOperations({
        extractPersistedOperationId: documentId,
        getPersistedOperation: (key) => manifest.get(key) ?? registered?.get(key) ?? null,
        // An APQ registration carries its document: it is an arbitrary document too.
        allowArbitraryOperations: options.allowArbitraryDocuments,
        customErrors: {
          notFound: { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } } },
          persistedQueryOnly: {
            message: 'Only trusted documents run here: send a documentId from the manifest',
            extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } },
          },
          keyNotFound: {
            message: 'Send a query, a documentId or extensions.persistedQuery.sha256Hash',
            extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
          },
        },
      }) as Plugin,
    );
  }
  if (registered) {
    plugins.push(useAPQ({ store: { get: (hash) => registered.get(hash) ?? null, set: (hash, query) => void registered.set(hash, query) } }) as Plugin);
  }
  return plugins;
}

/** `documentId` from a POST body or a GET query parameter, else the APQ hash. */
function documentId(params: GraphQLParams, request: Request): string | null {
  const fromBody = (params as GraphQLParams & { documentId?: unknown }).documentId;
  if (typeof fromBody === 'string' && fromBody) return fromBody;
  if (request.method === 'GET') {
    const fromUrl = new URL(request.url).searchParams.get('documentId');
    if (fromUrl) return fromUrl;
  }
  const persisted = params.extensions?.['persistedQuery'] as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (persisted?.version === 1 && typeof persisted.sha256Hash === 'string') return persisted.sha256Hash;
  return null;
}

function loadManifest(path: string): Map<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError('PERSISTED_DOCUMENTS', `cannot read a JSON manifest at ${path}: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError('PERSISTED_DOCUMENTS', 'the manifest must be a JSON object of { "<hash>": "<document>" }');
  }
  const documents = new Map<string, string>();
  for (const [hash, document] of Object.entries(raw)) {
    if (typeof document !== 'string' || !document.trim()) {
      throw new ConfigError('PERSISTED_DOCUMENTS', `the manifest entry ${JSON.stringify(hash.slice(0, 80))} is not a document`);
    }
    documents.set(hash, document);
  }
  return documents;
}

/** The manifest key of a document: the hex sha256 of its text, as GraphQL Code Generator's client preset computes it. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document).digest('hex');
}
