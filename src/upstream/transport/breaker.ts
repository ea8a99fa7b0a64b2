import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  SamplingBreaker,
  circuitBreaker,
  handleWhen,
  type IBreaker,
} from 'cockatiel';
import { UpstreamError } from '../errors.js';
import { endedByCaller } from '../failures.js';
import type { Guard, Layer } from './call.js';
import { toError } from '../../inflight-waiter.js';

/** One circuit breaker per upstream client (cockatiel's policy, with the counting rules below), and the layer that runs calls inside it. */

export type BreakerState = 'open' | 'halfOpen' | 'closed';

export interface BreakerOptions {
  /** Failure percentage in the rolling window above which the circuit opens. Default 50 (1–99). */
  errorThresholdPercentage?: number;
  /** Calls in the window before the percentage is considered. Default 10. */
  volumeThreshold?: number;
  /** How long the circuit stays open before one trial call. Default 10 000 ms. */
  resetTimeoutMs?: number;
  /** Length of the rolling statistics window. Default 10 000 ms. */
  rollingCountTimeoutMs?: number;
  /**
   * Failures in a row that open the circuit whatever the window holds: after a busy healthy period the
   * window's successes would dilute a hanging upstream's timeouts for a whole window. Default 5.
   */
  consecutiveFailures?: number;
}

export interface Breaker {
  /** The counts a call made now writes its outcome in while the circuit is closed (the dispatch step writes it: send.ts); undefined once it is not. */
  closed(): Guard | undefined;
  /**
   * Runs `call` while the circuit is not closed: as the one trial call once it has been open for
   * `resetTimeoutMs`; otherwise rejects with cockatiel's `BrokenCircuitError` without calling.
   */
  outsideClosed<T>(call: () => Promise<T>): Promise<T>;
  /** Stops the breaker's timer. */
  close(): void;
}

/**
 * What counts: only an unhealthy upstream (no answer, a 5xx, a timeout, a body cut short). Its 4xx
 * answers show it healthy, and a caller who went away says nothing about it, except for a half-open
 * trial call: one its caller abandoned (or whose operation ran out of time) has not shown the upstream healthy, so it opens the circuit again.
 */
function countsAsFailure(error: unknown): boolean {
  if (endedByCaller(error)) return false;
  // The gateway's own ceiling of bytes in flight says nothing of the upstream.
  if (error instanceof UpstreamError) return error.kind === 'UNAVAILABLE' && error.code !== 'EINFLIGHTBYTES';
  return true;
}

export function createBreaker(opts: BreakerOptions, onState?: (state: BreakerState) => void): Breaker {
  const resetTimeoutMs = opts.resetTimeoutMs ?? 10_000;
  const counts = new WindowAndStreak(opts);
  // Decides, once per failed call, whether the upstream failed; what does not count is written down
  // here too, so that a call enters cockatiel's policy and nothing else (no wrapper awaits its outcome).
  const counted = (error: unknown): boolean => {
    if (countsAsFailure(error)) return true;
    const trial = policy.state === CircuitState.HalfOpen;
    if (endedByCaller(error)) {
      // A trial its caller abandoned has not shown the upstream healthy: the circuit opens again.
      if (trial) return true;
      counts.abandoned();
    } else if (!trial) {
      // Not a failure of the upstream: a call that did not fail, as the window always has (a trial's outcome closes the circuit instead).
      counts.success(CircuitState.Closed);
    }
    return false;
  };
  const policy = circuitBreaker(handleWhen(counted), { halfOpenAfter: resetTimeoutMs, breaker: counts });

  // cockatiel half-opens lazily, on the first call after `halfOpenAfter`; the state is reported when
  // the circuit starts admitting that trial call (1 ms late, so that the call then surely is one).
  let reported: BreakerState = 'closed';
  let halfOpenTimer: NodeJS.Timeout | undefined;
  const report = (state: BreakerState) => {
    if (state === reported) return;
    reported = state;
    onState?.(state);
  };
  policy.onStateChange((state) => {
    clearTimeout(halfOpenTimer);
    if (state === CircuitState.Open) {
      report('open');
      halfOpenTimer = setTimeout(() => report('halfOpen'), resetTimeoutMs + 1).unref();
    } else if (state === CircuitState.HalfOpen) {
      report('halfOpen');
    } else if (state === CircuitState.Closed) {
      report('closed');
    }
  });

  // A failure of a call made while the circuit was closed, written down as cockatiel would have at
  // its end: through the policy while it is still closed (which opens it when the counts say so), into
  // the counts alone once another call opened it (cockatiel's `open` would change nothing then).
  const failedClosed = (thrown: unknown): Promise<never> => {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    if (!counted(error)) return Promise.reject(error);
    if (policy.state === CircuitState.Closed) return policy.execute(() => Promise.reject(error));
    counts.failure(CircuitState.Closed);
    return Promise.reject(error);
  };

  // Closed, the common case: a call runs outside cockatiel's two async steps, its success counted as
  // the policy counts it; the policy is entered for a failure, an open circuit or its trial.
  const guard: Guard = { succeeded: () => counts.success(CircuitState.Closed), failed: failedClosed };

  return {
    closed: () => (policy.state === CircuitState.Closed ? guard : undefined),
    outsideClosed<T>(call: () => Promise<T>): Promise<T> {
      // One trial at a time: the other calls fail fast rather than wait for it (cockatiel would queue them).
      if (policy.state === CircuitState.HalfOpen) return Promise.reject(new BrokenCircuitError());
      return policy.execute(call);
    },
    close: () => clearTimeout(halfOpenTimer),
  };
}

/**
 * Runs each call inside `breaker`: a shared call (share.ts) once, however many wait on it. While the
 * circuit is closed the call carries the breaker's counts (`UpstreamCall.guard`) and the dispatch step
 * writes its outcome down as it settles it, so that the call takes no promise of its own here.
 */
export function guardedBy(breaker: Breaker): Layer {
  return (next) =>
    function guarded(call) {
      const guard = breaker.closed();
      if (guard) {
        call.guard = guard;
        return next(call);
      }
      // Open or half-open: cockatiel's policy runs the call as a promise, whose outcome is the call's.
      const to = call.to;
      breaker
        .outsideClosed(
          () =>
            new Promise((resolve, reject) => {
              call.to = { resolve, reject };
              next(call);
            }),
        )
        .then(
          (value) => to.resolve(value),
          (error: unknown) => to.reject(toError(error)),
        );
    };
}

/**
 * Opens on either rule: more than `errorThresholdPercentage` of the calls of the rolling window failed
 * (once it holds `volumeThreshold` calls), or `consecutiveFailures` failed in a row.
 */
class WindowAndStreak implements IBreaker {
  readonly #window: SamplingBreaker;
  readonly #streak: ConsecutiveBreaker;

  constructor(opts: BreakerOptions) {
    const percentage = opts.errorThresholdPercentage ?? 50;
    if (!(percentage > 0 && percentage < 100)) throw new RangeError('errorThresholdPercentage must be between 0 and 100 (exclusive)');
    const windowMs = opts.rollingCountTimeoutMs ?? 10_000;
    const volume = opts.volumeThreshold ?? 10;
    // The sampling breaker wants a rate: `volume` calls per window, less half a call so that exactly
    // `volume` calls reach it whatever the floating-point rounding.
    const minimumRps = Math.max(0.5, volume - 0.5) / (windowMs / 1000);
    this.#window = new SamplingBreaker({ threshold: percentage / 100, duration: windowMs, minimumRps });
    this.#streak = new ConsecutiveBreaker(opts.consecutiveFailures ?? 5);
  }

  get state(): unknown {
    return { window: this.#window.state, streak: this.#streak.state };
  }

  set state(value: unknown) {
    const { window, streak } = value as { window: SamplingBreaker['state']; streak: ConsecutiveBreaker['state'] };
    this.#window.state = window;
    this.#streak.state = streak;
  }

  success(state: CircuitState): void {
    this.#window.success(state);
    this.#streak.success();
  }

  failure(state: CircuitState): boolean {
    const byWindow = this.#window.failure(state);
    const byStreak = this.#streak.failure();
    return byWindow || byStreak;
  }

  /** A call its caller abandoned: a call that did not fail for the window; the streak of failures goes on. */
  abandoned(): void {
    this.#window.success(CircuitState.Closed);
  }
}
