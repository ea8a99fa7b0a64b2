import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { Kind, parse } from 'graphql';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../config.js';
import { sha256 } from '../hashing.js';
import { heldLru } from '../held.js';

export interface TrustedDocumentsOptions {
  /**
   * Path of a JSON manifest `{ "<hash>": "<document>" }`: keys the bare hex sha256 of the document
   * (`npm run documents:manifest`, the Relay compiler's ids) or, as GraphQL Code Generator's client
   * preset writes them (`persistedDocuments: true`), `sha256:<hex>`.
   */
  manifestPath: string | null;
  /** Whether documents that are not in the manifest run. Only consulted when a manifest is set. */
  allowArbitraryDocuments: boolean;
  /** Automatic persisted queries: a client registers a document under its sha256 hash, then sends only the hash. */
  apq: boolean;
  /** Heap held by documents registered by APQ, in bytes (two per character of their text). Default `APQ_MAX_BYTES` (8 MiB). */
  apqMaxBytes?: number;
}

/** How the lookup plugins find a persisted document: the fast path for hits (fast-path/persisted.ts) reads the same. */
export interface PersistedDocuments {
  /** Whether a manifest is loaded: only then is `documentId` read. */
  manifest: boolean;
  /** Whether a request's own document runs beside the manifest's. */
  arbitrary: boolean;
  apq: boolean;
  /** What the manifest plugin runs for a `documentId` (or, with a manifest, an APQ hash): the manifest's, else one APQ registered. */
  byId(id: string): string | undefined;
  /** What APQ alone runs for a hash. */
  byHash(hash: string): string | undefined;
}

/** Default bound of the APQ store: 8 MiB, at least 64 documents of the largest size admitted (64 KiB). */
export const APQ_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Trusted documents and APQ, with Yoga's own plugins. A persisted document is named by `documentId` (in
 * the POST body or as a GET query parameter) or by the APQ form `extensions.persistedQuery.sha256Hash`.
 * With a manifest, lookups go to it first, then to the APQ store; without one, APQ alone serves hashes.
 */
export function useTrustedDocuments(options: TrustedDocumentsOptions): { lookup: Plugin[]; register: Plugin; operationNames: ReadonlySet<string>; persisted: PersistedDocuments } {
  const manifest = options.manifestPath ? loadManifest(options.manifestPath) : null;
  const registered = options.apq
    ? heldLru('apq_documents', new LRUCache<string, string>({ maxSize: options.apqMaxBytes ?? APQ_MAX_BYTES, sizeCalculation: (query, hash) => 2 * (query.length + hash.length) }))
    : null;
  const plugins: Plugin[] = [];
  const persisted: PersistedDocuments = {
    manifest: manifest !== null,
    arbitrary: options.allowArbitraryDocuments,
    apq: registered !== null,
    byId: (id) => manifest?.get(manifestKey(id)) ?? registered?.get(id),
    byHash: (hash) => registered?.get(manifestKey(hash)),
  };

  if (manifest) {
    plugins.push(
      keepingDocumentId(usePersistedOperations({
        extractPersistedOperationId: documentId,
        getPersistedOperation: (key) => persisted.byId(key) ?? null,
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
      })),
    );
  }
  const pending = new WeakMap<Request, { hash: string; query: string }>();
  if (registered) plugins.push(useAutomaticPersistedQueries(registered, pending, (hash) => manifest?.has(hash) ?? false));
  return {
    lookup: plugins,
    persisted,
    // The operations the manifest defines: the only names the operation metrics carry (operation-metrics.ts).
    operationNames: new Set(manifest ? [...manifest.values()].flatMap(operationNamesOf) : []),
    // Placed after every plugin that may refuse an operation before it runs (document limits, armor,
    // cost): reached only by a document that passed them all, which is only then kept.
    register: {
      onExecute: ({ args }) => commit(args.contextValue),
      onSubscribe: ({ args }) => commit(args.contextValue),
    },
  };

  function commit(context: unknown): void {
    const request = (context as { request?: Request } | undefined)?.request;
    const registration = request && pending.get(request);
    if (!registration || !registered) return;
    pending.delete(request);
    registered.set(registration.hash, registration.query);
  }
}

/**
 * Automatic persisted queries (Apollo's protocol, as `@graphql-yoga/plugin-apq`): a hash alone is
 * looked up; a document with its hash is checked against it and only noted here. It is registered by
 * the `register` plugin once it has passed the document limits, armor and the cost limit, so a
 * refused document (2 MB, say) is never kept, and the store is bounded by bytes, not entries.
 */
function useAutomaticPersistedQueries(
  store: LRUCache<string, string>,
  pending: WeakMap<Request, { hash: string; query: string }>,
  inManifest: (hash: string) => boolean,
): Plugin {
  return {
    onParams({ params, setParams, request }) {
      const persisted = params.extensions?.['persistedQuery'] as { version?: unknown; sha256Hash?: unknown } | undefined;
      if (persisted?.version !== 1 || typeof persisted.sha256Hash !== 'string') return;
      const hash = manifestKey(persisted.sha256Hash);
      if (params.query == null) {
        const query = store.get(hash);
        if (query === undefined) {
          throw createGraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } } });
        }
        setParams({ ...params, query });
        return;
      }
      if (documentHash(params.query) !== hash) {
        throw createGraphQLError('PersistedQueryMismatch', { extensions: { code: 'PERSISTED_QUERY_MISMATCH', http: { status: 400 } } });
      }
      if (!store.has(hash) && !inManifest(hash)) pending.set(request, { hash, query: params.query });
    },
  };
}

/** The names of the operations a document defines (none when it does not parse: it will not run either). */
function operationNamesOf(document: string): string[] {
  try {
    return parse(document, { noLocation: true }).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : []));
  } catch {
    return [];
  }
}

/** The `documentId` each request named, by the parameters that replaced it (read by `namedDocumentId`). */
const namedIds = new WeakMap<GraphQLParams, string>();

/** The `documentId` a request named, given the parameters the manifest plugin left (which carry only the document's text). */
export function namedDocumentId(params: GraphQLParams): string | undefined {
  return namedIds.get(params);
}

/**
 * `usePersistedOperations` replaces the parameters with the document's text and drops `documentId`: the id
 * is noted against the new parameters, so that a stale entry's refresh (response-cache/plugin.ts) names the
 * document as the client did, where its text would be refused with arbitrary documents off.
 */
function keepingDocumentId(plugin: Plugin): Plugin {
  const onParams = plugin.onParams!;
  return {
    ...plugin,
    onParams(payload) {
      const id = idOf(payload.params, payload.request);
      if (!id) return onParams(payload);
      const setParams = (params: GraphQLParams) => {
        namedIds.set(params, id);
        payload.setParams(params);
      };
      return onParams({ ...payload, setParams });
    },
  };
}

/** `documentId` from a POST body or a GET query parameter. */
function idOf(params: GraphQLParams, request: Request): string | null {
  const fromBody = (params as GraphQLParams & { documentId?: unknown }).documentId;
  if (typeof fromBody === 'string' && fromBody) return fromBody;
  if (request.method === 'GET') return new URL(request.url).searchParams.get('documentId') || null;
  return null;
}

/** `documentId` from a POST body or a GET query parameter, else the APQ hash. */
function documentId(params: GraphQLParams, request: Request): string | null {
  const id = idOf(params, request);
  if (id) return id;
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
    // A key that names its algorithm says what it is: one that is not its document's sha256 is a broken manifest.
    if (hash.startsWith(SHA256_PREFIX) && documentHash(document) !== manifestKey(hash)) {
      throw new ConfigError('PERSISTED_DOCUMENTS', `the manifest entry ${JSON.stringify(hash.slice(0, 80))} is not the sha256 of its document`);
    }
    documents.set(manifestKey(hash), document);
  }
  return documents;
}

/** The prefix of a document id that names its hash (GraphQL over HTTP's persisted documents appendix; the client preset writes it). */
const SHA256_PREFIX = 'sha256:';

/** Where a document id is kept and looked up: `sha256:<hex>` and `<hex>` name the same document. */
export function manifestKey(id: string): string {
  return id.startsWith(SHA256_PREFIX) ? id.slice(SHA256_PREFIX.length).toLowerCase() : id;
}

/** The manifest key of a document: the hex sha256 of its text, as GraphQL Code Generator's client preset computes it. */
export function documentHash(document: string): string {
  return sha256(document, 'hex');
}
