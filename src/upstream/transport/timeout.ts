import type { CallTimer, Layer, UpstreamCall } from './call.js';
import { passDeadline } from './deadline.js';

/** The timeout of one upstream call, retry included, unless the client or the service configures another. */
export const DEFAULT_TIMEOUT_MS = 5_000;

/** The call's own timeout passed (`ETIMEDOUT`). */
export class CallTimedOut extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * Ends each call after `timeoutMs`, or when its operation's deadline passes if that comes first
 * (deadline.ts). The calls of one client all get the same timeout, so they end in the order they
 * started: one timer for the earliest serves them all (`Expiry`). A call whose deadline comes sooner
 * gets a timer of its own. Either is stopped when the call's last request is over (send.ts).
 */
export function timeout(timeoutMs: number): Layer {
  const expiry = new Expiry(timeoutMs);
  return (next) =>
    function timed(call) {
      const now = performance.now();
      call.endsAt = now + timeoutMs;
      const left = call.deadlineAt - now;
      call.timer = left < timeoutMs ? new DeadlineTimer(call, left) : expiry.add(call);
      return next(call);
    };
}

/** A call ended by its operation's deadline before its own timeout. */
class DeadlineTimer implements CallTimer {
  readonly #timer: NodeJS.Timeout;

  constructor(call: UpstreamCall, ms: number) {
    this.#timer = setTimeout(passDeadline, ms, call);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * The calls of one client waiting for their answers, in the order their timeouts pass, and one timer
 * for the first: a call costs an array slot rather than a timer armed and cleared. Answered calls are
 * dropped from the front as they go, and the whole line is compacted once it holds more answered
 * calls than waiting ones, so a slow call at the front does not hold the answered ones behind it.
 * The timer does not keep the process alive: a call waiting is held by its socket or its pause.
 */
class Expiry implements CallTimer {
  #line: (UpstreamCall | undefined)[] = [];
  #head = 0;
  #waiting = 0;
  #armed = false;

  constructor(readonly timeoutMs: number) {}

  add(call: UpstreamCall): CallTimer {
    this.#line.push(call);
    this.#waiting += 1;
    if (!this.#armed) this.#arm(this.timeoutMs);
    return this;
  }

  stop(call: UpstreamCall): void {
    this.#waiting -= 1;
    const line = this.#line;
    if (line[this.#head] === call) {
      line[this.#head++] = undefined;
      while (this.#head < line.length && line[this.#head] === undefined) this.#head++;
    } else {
      const at = line.indexOf(call, this.#head);
      if (at >= 0) line[at] = undefined;
    }
    if (this.#waiting === 0) this.#empty();
    else if (line.length - this.#head > 2 * this.#waiting + 32) this.#compact();
  }

  /** Ends every call whose time is up, and waits for the next one's. */
  #expire(): void {
    this.#armed = false;
    const now = performance.now();
    const line = this.#line;
    while (this.#head < line.length) {
      const call = line[this.#head];
      if (call && call.endsAt > now) break;
      line[this.#head++] = undefined;
      if (call) {
        this.#waiting -= 1;
        call.timer = undefined;
        call.end(new CallTimedOut(`timeout of ${this.timeoutMs} ms passed`));
      }
    }
    const first = line[this.#head];
    if (first) this.#arm(Math.max(1, first.endsAt - now));
    else this.#empty();
  }

  #arm(ms: number): void {
    this.#armed = true;
    setTimeout(() => this.#expire(), ms).unref();
  }

  #compact(): void {
    this.#line = this.#line.slice(this.#head).filter((call) => call !== undefined);
    this.#head = 0;
  }

  /** Nothing waits: the timer, if armed, is left to pass idle (unreferenced) rather than cleared and armed again for the next call. */
  #empty(): void {
    this.#line = [];
    this.#head = 0;
  }
}
