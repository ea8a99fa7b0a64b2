import type { OperationDeadline } from '../../operation/index.js';
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
 * started: one timer for the earliest serves them all (`Expiry`). The calls that their operation's
 * deadline ends sooner share one timer per operation (`DeadlineAlarm`). Either is stopped when the
 * call's last request is over (send.ts).
 */
export function timeout(timeoutMs: number): Layer {
  const expiry = new Expiry(timeoutMs);
  return (next) =>
    function timed(call) {
      const now = performance.now();
      call.endsAt = now + timeoutMs;
      const operation = call.scope?.deadline;
      call.timer = operation && operation.at - now < timeoutMs ? alarmOf(operation).add(call) : expiry.add(call);
      return next(call);
    };
}

/** Each operation's alarm, while it has calls that its deadline ends first. */
const alarms = new WeakMap<OperationDeadline, DeadlineAlarm>();

function alarmOf(deadline: OperationDeadline): DeadlineAlarm {
  let alarm = alarms.get(deadline);
  if (!alarm) alarms.set(deadline, (alarm = new DeadlineAlarm(deadline.at)));
  return alarm;
}

/** The calls of one operation that its deadline ends before their own timeouts: one timer for all of them. */
class DeadlineAlarm implements CallTimer {
  readonly #calls = new Set<UpstreamCall>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly at: number) {}

  add(call: UpstreamCall): CallTimer {
    this.#calls.add(call);
    this.#timer ??= setTimeout(() => this.#ring(), Math.max(0, this.at - performance.now()));
    return this;
  }

  stop(call: UpstreamCall): void {
    this.#calls.delete(call);
    if (this.#calls.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #ring(): void {
    this.#timer = undefined;
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const call of calls) {
      call.timer = undefined;
      passDeadline(call);
    }
  }
}

/**
 * The calls of one client waiting for their answers, in the order their timeouts pass, and one timer
 * for the first: a call costs an array slot rather than a timer armed and cleared. Answered calls are
 * dropped from the front as they go, and the whole line is compacted once it holds more answered
 * calls than waiting ones, so a slow call at the front does not hold the answered ones behind it.
 * The timer keeps the process alive only while a call waits: once none does it is left to pass idle,
 * unreferenced, rather than cleared and armed again for the next call.
 */
class Expiry implements CallTimer {
  #line: (UpstreamCall | undefined)[] = [];
  #head = 0;
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly timeoutMs: number) {}

  add(call: UpstreamCall): CallTimer {
    this.#line.push(call);
    if ((this.#waiting += 1) === 1) this.#timer?.ref();
    if (!this.#timer) this.#arm(this.timeoutMs);
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
    this.#timer = undefined;
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
    this.#timer = setTimeout(() => this.#expire(), ms);
  }

  #compact(): void {
    this.#line = this.#line.slice(this.#head).filter((call) => call !== undefined);
    this.#head = 0;
  }

  #empty(): void {
    this.#line = [];
    this.#head = 0;
    this.#timer?.unref();
  }
}
