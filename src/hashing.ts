import { createHash, hash, type Hash } from 'node:crypto';

/** The encodings the gateway's digests are written in: hex where a standard asks for it, else base64url. */
export type DigestEncoding = 'hex' | 'base64url';

/** The SHA-256 of a text's UTF-8 bytes (or of bytes), in one call. */
export function sha256(data: string | Buffer, encoding: DigestEncoding = 'base64url'): string {
  return hash('sha256', data, encoding);
}

/** A SHA-256 fed piece by piece, for a body that arrives in chunks. */
export function sha256Pieces(): Hash {
  return createHash('sha256');
}
