import { createHmac, timingSafeEqual } from 'node:crypto';

/** Oldest (or furthest in the future) signature timestamp accepted, in seconds. */
export const MAX_SKEW_SECONDS = 300;

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
const TIMESTAMP = /^\d{1,12}$/;

export interface SignatureHeaders {
  /** `X-Service-Timestamp`: unix seconds. */
  timestamp: string | null;
  /** `X-Service-Signature`: `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
  signature: string | null;
}

export interface SignedRequest extends SignatureHeaders {
  /** The raw body, whole or in the pieces it arrived in. */
  rawBody: Uint8Array | readonly Uint8Array[];
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/** A signature being checked over a body fed to it a piece at a time (a large body is hashed between turns of the event loop). */
export interface SignatureCheck {
  update(piece: Uint8Array): void;
  verdict(): Verdict;
}

/**
 * Checks a webhook's signature as docs/upstream.md section 4 describes. The digest is compared in
 * constant time; nothing about the expected value is revealed by the answer.
 */
export function verifySignature(secret: string, request: SignedRequest, nowMs = Date.now()): Verdict {
  const check = startSignatureCheck(secret, request, nowMs);
  if ('ok' in check) return check;
  for (const piece of request.rawBody instanceof Uint8Array ? [request.rawBody] : request.rawBody) check.update(piece);
  return check.verdict();
}

/** The headers' refusal at once (malformed, or a timestamp too far from now), or the check to feed the body to. */
export function startSignatureCheck(secret: string, headers: SignatureHeaders, nowMs = Date.now()): SignatureCheck | Verdict {
  const { timestamp, signature } = headers;
  if (!timestamp || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'missing or malformed X-Service-Timestamp' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
    return { ok: false, reason: `X-Service-Timestamp is more than ${MAX_SKEW_SECONDS} s away from now` };
  }
  const given = signature ? SIGNATURE.exec(signature.trim()) : null;
  if (!given) return { ok: false, reason: 'missing or malformed X-Service-Signature' };

  const hmac = createHmac('sha256', secret).update(`${timestamp}.`);
  return {
    update: (piece) => void hmac.update(piece),
    verdict() {
      const expected = hmac.digest();
      const provided = Buffer.from(given[1]!, 'hex');
      if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) return { ok: false, reason: 'signature does not match' };
      return { ok: true };
    },
  };
}
