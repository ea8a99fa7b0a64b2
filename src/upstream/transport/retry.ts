import { isConnectionFailure } from '../failures.js';
import type { Endable, Layer, UpstreamCall } from './call.js';

export interface RetryOptions {
  /** Pause before the one retry; a random jitter of up to the same amount is added. Default 50 ms. */
  backoffMs?: number;
}

const DEFAULT_BACKOFF_MS = 50;

/**
 * One more try of a GET whose first request surely never reached a handler (a refused or reset
 * connection: failures.ts), after a short pause. Any other failure, any POST, any call already ended
 * (timeout, deadline, caller) is final. The call's timeout covers both tries.
 */
export function retry(options: RetryOptions = {}): Layer {
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  return (next) =>
    async function retried(call) {
      try {
        return await next(call);
      } catch (error) {
        if (call.method !== 'GET' || call.attempts !== 1 || call.endedBy || !isConnectionFailure(error)) throw error;
        await new Pause(call, backoffMs + Math.random() * backoffMs).done;
        return next(call);
      }
    };
}

/** The pause before the retry; ending the call ends it with the call's reason. */
class Pause implements Endable {
  readonly done: Promise<void>;
  #timer: NodeJS.Timeout | undefined;
  #reject!: (reason: Error) => void;

  constructor(call: UpstreamCall, ms: number) {
    this.done = new Promise((resolve, reject) => {
      this.#reject = reject;
      this.#timer = setTimeout(resolve, ms);
    });
    call.runs(this);
  }

  end(reason: Error): void {
    clearTimeout(this.#timer);
    this.#reject(reason);
  }
}
