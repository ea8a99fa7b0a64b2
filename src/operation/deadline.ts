import { UpstreamError, type ServiceName } from '../upstream/errors.js';

/**
 * The time one operation has, from when the gateway received its request (the client's
 * `X-Request-Timeout-Ms`, capped, or the default). Every upstream call made for the operation gets at
 * most the time left; a wait on work shared with other requests stops at it without ending that work
 * (`untilDeadline`). A plain clock reading: no timer runs until something waits.
 */
export class OperationDeadline {
  /** `performance.now()` at which the time is up. */
  readonly at: number;

  constructor(
    readonly ms: number,
    startedAt: number = performance.now(),
  ) {
    this.at = startedAt + ms;
  }

  /** Milliseconds left; 0 once the time is up. */
  remainingMs(): number {
    return Math.max(0, this.at - performance.now());
  }

  /** Throws `service`'s `DEADLINE` failure once no time is left: nothing is started for an operation out of time. */
  assertLeft(service: ServiceName): void {
    if (this.at <= performance.now()) throw deadlineExceeded(service);
  }
}

/**
 * The one failure of a passed deadline, whoever noticed it (a call refused, a call or a wait ended by
 * its timer): `reason: "DEADLINE"` to the client. The operation ended it, not the upstream, so no
 * breaker counts it as the upstream's failure.
 */
export function deadlineExceeded(service: ServiceName): UpstreamError {
  return new UpstreamError({
    service,
    kind: 'UNAVAILABLE',
    code: 'DEADLINE',
    retryable: true,
    message: `${service} upstream: the operation's deadline passed before it answered`,
  });
}

export function isDeadlineExceeded(error: unknown): boolean {
  return error instanceof UpstreamError && error.code === 'DEADLINE';
}

/**
 * `pending`, or a `DEADLINE` failure of `service` once `deadline` passes, whichever comes first. For
 * waits on work shared with other requests (a shared fetch in flight, the market index's first build):
 * this request stops waiting; the work goes on for the others.
 */
export function untilDeadline<T>(pending: Promise<T>, deadline: OperationDeadline | undefined, service: ServiceName): Promise<T> {
  if (!deadline) return pending;
  const left = deadline.remainingMs();
  if (left <= 0) {
    pending.catch(() => {});
    return Promise.reject(deadlineExceeded(service));
  }
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(deadlineExceeded(service)), left);
  });
  return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
}
