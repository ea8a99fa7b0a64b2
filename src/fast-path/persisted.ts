import { documentHash, manifestKey, type PersistedDocuments } from '../plugins/trusted-documents.js';

/** What a request names its document by, as sent (a POST's body or a GET's parameters). */
export interface NamedDocument {
  query: unknown;
  documentId: unknown;
  extensions: unknown;
}

/**
 * The document text a request runs, found as the pipeline's trusted-documents plugins find it
 * (plugins/trusted-documents.ts: the manifest, then documents APQ registered), or null for a request
 * the fast path leaves to the pipeline: one they refuse (a text where only the manifest's run, an id
 * or hash they do not know, a hash that is not its document's), one that registers a document (a text
 * with its hash), and any other shape (a text and an id together, extensions other than APQ's).
 */
export function documentText(persisted: PersistedDocuments | undefined, { query, documentId, extensions }: NamedDocument): string | null {
  if (query != null) {
    if (typeof query !== 'string' || !query || documentId != null || extensions != null) return null;
    return persisted?.manifest && !persisted.arbitrary ? null : query;
  }
  if (!persisted) return null;
  if (documentId != null) {
    // Without a manifest no plugin reads `documentId`: Yoga refuses the parameter.
    if (typeof documentId !== 'string' || !documentId || extensions != null || !persisted.manifest) return null;
    return persisted.byId(documentId) ?? null;
  }
  const hash = apqHash(extensions);
  if (hash === null) return null;
  if (!persisted.manifest) return persisted.apq ? (persisted.byHash(hash) ?? null) : null;
  const text = persisted.byId(hash);
  // With APQ on, its plugin checks the text the manifest plugin found against the hash it was named by.
  if (text === undefined || (persisted.apq && documentHash(text) !== manifestKey(hash))) return null;
  return text;
}

/** The hash of `extensions` that are exactly APQ's `{ persistedQuery: { version: 1, sha256Hash } }`, else null. */
function apqHash(extensions: unknown): string | null {
  if (!isRecord(extensions) || !onlyKeys(extensions, ['persistedQuery'])) return null;
  const persisted = extensions['persistedQuery'];
  if (!isRecord(persisted) || !onlyKeys(persisted, ['version', 'sha256Hash']) || persisted['version'] !== 1) return null;
  const hash = persisted['sha256Hash'];
  return typeof hash === 'string' && hash ? hash : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(record: Record<string, unknown>, names: readonly string[]): boolean {
  for (const name in record) if (!names.includes(name)) return false;
  return true;
}
