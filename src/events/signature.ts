import { createHmac, timingSafeEqual } from 'node:crypto';

/** Oldest (or furthest in the future) signature timestamp accepted, in seconds. */
export const MAX_SKEW_SECONDS = 300;

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
const TIMESTAMP = /^\d{1,12}$/;

export interface SignedRequest {
  /** `X-Service-Timestamp`: unix seconds. */
  timestamp: string | null;
  /** `X-Service-Signature`: `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
  signature: string | null;
  rawBody: Uint8Array;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/**
 * Checks a webhook's signature as docs/upstream.md section 4 describes. The digest is compared in
 * constant time; nothing about the expected value is revealed by the answer.
 */
export function verifySignature(secret: string, request: SignedRequest, nowMs = Date.now()): Verdict {
  const { timestamp, signature } = request;
  if (!timestamp || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'missing or malformed X-Service-Timestamp' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
    return { ok: false, reason: `X-Service-Timestamp is more than ${MAX_SKEW_SECONDS} s away from now` };
  }
  const given = signature ? SIGNATURE.exec(signature.trim()) : null;
  if (!given) return { ok: false, reason: 'missing or malformed X-Service-Signature' };

  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(request.rawBody).digest();
  const provided = Buffer.from(given[1]!, 'hex');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return { ok: false, reason: 'signature does not match' };
  }
  return { ok: true };
}
