import type { Layer, UpstreamCall } from './call.js';
import { passDeadline } from './deadline.js';

/** The timeout of one upstream call, retry included, unless the client or the service configures another. */
export const DEFAULT_TIMEOUT_MS = 5_000;

/** The call's own timeout passed (`ETIMEDOUT`). */
export class CallTimedOut extends Error {
  readonly code = 'ETIMEDOUT';
}

function timeOut(call: UpstreamCall, timeoutMs: number): void {
  call.end(new CallTimedOut(`timeout of ${timeoutMs} ms passed`));
}

/**
 * Ends each call after `timeoutMs`, or when its operation's deadline passes if that comes first
 * (deadline.ts): one timer per call, whichever of the two it is.
 */
export function timeout(timeoutMs: number): Layer {
  return (next) =>
    async function timed(call) {
      const now = performance.now();
      call.endsAt = now + timeoutMs;
      const left = call.deadlineAt - now;
      const timer = left < timeoutMs ? setTimeout(passDeadline, left, call) : setTimeout(timeOut, timeoutMs, call, timeoutMs);
      try {
        return await next(call);
      } finally {
        clearTimeout(timer);
      }
    };
}
