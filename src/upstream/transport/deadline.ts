import { deadlineExceeded } from '../deadline.js';
import type { Layer, UpstreamCall } from './call.js';

/** The operation the call was made for ran out of time: its deadline (`OperationDeadline`) passed first (`DEADLINE`). */
export class DeadlinePassed extends Error {
  readonly code = 'DEADLINE';
}

/** Ends `call` as its operation's deadline passes (a timer's callback: timeout.ts, share.ts). */
export function passDeadline(call: UpstreamCall): void {
  call.end(new DeadlinePassed("the operation's deadline passed"));
}

/**
 * The operation's deadline (scope.ts): no call once no time is left (none made, none counted, none
 * written down), and otherwise the moment each call must end by, which the timeout layer (timeout.ts)
 * and the wait on a shared call (share.ts) keep. Sets a number; arms no timer of its own.
 */
export const deadline: Layer = (next) =>
  function withinDeadline(call) {
    const operation = call.scope?.deadline;
    if (operation) {
      if (operation.remainingMs() <= 0) throw deadlineExceeded(call.service);
      call.deadlineAt = operation.at;
    }
    return next(call);
  };
