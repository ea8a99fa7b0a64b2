import { createHmac } from 'node:crypto';

/**
 * The headers of a signed delivery (docs/upstream.md section 4): HMAC-SHA256 over `<timestamp>.<raw body>`.
 * The simulator signs on its own rather than sharing the gateway's verifier, so a test of one checks the other.
 */
export function signatureHeaders(secret: string, rawBody: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const digest = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return { 'x-service-timestamp': timestamp, 'x-service-signature': `sha256=${digest}` };
}
