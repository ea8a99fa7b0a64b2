import { sha256 } from '../hashing.js';
import { countedCache } from '../held.js';
import type { Identity } from '../models/alerts.js';

export interface VerifiedCallersOptions {
  /** How long a verified identity is believed without asking again (`AUTH_IDENTITY_TTL_MS`). */
  ttlMs: number;
  /** Entries held at most (each a few hundred bytes). Default 100,000. */
  max?: number;
}

/**
 * Who the alerts service said a token belongs to (`GET /v2/auth`), remembered per SHA-256 of the
 * credentials for a short time: a token lives a year, so a screen's identity needs no call on every
 * request, and the rate limit can count a caller by who it is rather than by what it claims. Only
 * answers the service gave are remembered: a forged token is never an identity. Holds no credential,
 * only their hash and the wallet address the service named; a send's app key is held the same way once
 * a send with it succeeded.
 */
export interface VerifiedCallers {
  /** The identity verified for these credentials (by their `subscriberKey`), if still believed. */
  identity(credentialsHash: string): Identity | undefined;
  rememberIdentity(credentialsHash: string, identity: Identity): void;
  /** Forgets the identity of credentials the alerts service has just refused (a revoked token). */
  forgetIdentity(credentialsHash: string): void;
  /** Forgets every identity (a replica that may have missed a revocation believes none it remembered). */
  forgetAllIdentities(): void;
  /** Whether a send with this app key (by its hash) succeeded lately. */
  knowsApp(apiKeyHash: string): boolean;
  rememberApp(apiKeyHash: string): void;
}

const IDENTITY_ENTRY_BYTES = 320;
const APP_ENTRY_BYTES = 200;
/**
 * A credentials hash (SHA-256, hex) remembered with no value: the key's 64 characters and the LRU's
 * bookkeeping with a TTL measure about 200 bytes on Node 24; 256 leaves room for the index's growth.
 */
export const HASH_ENTRY_BYTES = 256;
/** Refused credentials remembered at most: a flood of forged tokens holds no more than this. */
export const REFUSED_CALLERS_MAX = 10_000;

export function createVerifiedCallers(options: VerifiedCallersOptions): VerifiedCallers {
  const max = options.max ?? 100_000;
  const ttl = Math.max(1, options.ttlMs);
  // An entry: a SHA-256 in base64url (43 characters), the wallet address the service named, the LRU's bookkeeping.
  const identities = countedCache<string, Identity>({ name: 'verified_identities', max, ttl, entryBytes: IDENTITY_ENTRY_BYTES });
  const apps = countedCache<string, true>({ name: 'verified_apps', max: Math.max(1, Math.floor(max / 10)), ttl, entryBytes: APP_ENTRY_BYTES });
  return {
    identity: (hash) => (options.ttlMs > 0 ? identities.get(hash) : undefined),
    rememberIdentity(hash, identity) {
      if (options.ttlMs > 0) identities.set(hash, { walletAddress: identity.walletAddress });
    },
    forgetIdentity: (hash) => void identities.delete(hash),
    forgetAllIdentities: () => identities.clear(),
    knowsApp: (hash) => options.ttlMs > 0 && apps.has(hash),
    rememberApp(hash) {
      if (options.ttlMs > 0) apps.set(hash, true);
    },
  };
}

/**
 * Credentials (by their `subscriberKey` hash) the alerts service refused lately, so a repeated forged
 * token costs the rate limit's verification no call: bounded in count and so in bytes, reported on
 * `/metrics` as `refused_callers`.
 */
export function createRefusedCallers(ttlMs: number): { has(hash: string): boolean; set(hash: string, value: true): unknown } {
  return countedCache<string, true>({ name: 'refused_callers', max: REFUSED_CALLERS_MAX, ttl: Math.max(1, ttlMs), entryBytes: HASH_ENTRY_BYTES });
}

/** The name a send's app key is held and counted under: its SHA-256, never the key. */
export function appKeyHash(apiKey: string): string {
  return sha256(apiKey);
}
