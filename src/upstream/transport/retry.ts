import { isConnectionFailure } from '../failures.js';
import type { Endable, UpstreamCall } from './call.js';

export interface RetryOptions {
  /** Pause before the one retry; a random jitter of up to the same amount is added. Default 50 ms. */
  backoffMs?: number;
}

const DEFAULT_BACKOFF_MS = 50;

/** The pause before trying `call` again after `error`, or undefined when the failure is final. */
export type RetryPolicy = (call: UpstreamCall, error: Error) => number | undefined;

/**
 * One more try of a GET whose first request surely never reached a handler (a refused or reset
 * connection: failures.ts), after a short pause. Any other failure, any POST, any call already ended
 * (timeout, deadline, caller) is final. The call's timeout covers both tries. The dispatch step
 * (send.ts) asks it when a request fails, so that a call that needs no retry pays nothing for it.
 */
export function retry(options: RetryOptions = {}): RetryPolicy {
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  return (call, error) =>
    call.method === 'GET' && call.attempts === 1 && !call.endedBy && isConnectionFailure(error) ? backoffMs + Math.random() * backoffMs : undefined;
}

/** The pause before the retry; ending the call ends it with the call's reason. */
export class Pause implements Endable {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    call: UpstreamCall,
    ms: number,
    readonly resume: () => void,
    readonly fail: (reason: Error) => void,
  ) {
    this.#timer = setTimeout(resume, ms);
    call.runs(this);
  }

  end(reason: Error): void {
    clearTimeout(this.#timer);
    this.fail(reason);
  }
}
