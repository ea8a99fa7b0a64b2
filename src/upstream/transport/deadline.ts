import { deadlineExceeded } from '../../operation/index.js';
import type { Layer, UpstreamCall } from './call.js';

/** Ends `call` as its operation's deadline passes (a timer's callback: timeout.ts, lanes.ts, share.ts). */
export function passDeadline(call: UpstreamCall): void {
  call.end(deadlineExceeded(call.service));
}

/**
 * The operation's deadline, on each call: no call once no time is left (none made, none counted, none
 * written down), and otherwise the moment each call must end by, which the timeout layer (timeout.ts)
 * and the waits (lanes.ts, share.ts) keep. Sets a number; arms no timer of its own.
 */
export const deadline: Layer = (next) =>
  function withinDeadline(call) {
    const operation = call.scope?.deadline;
    if (operation) {
      operation.assertLeft(call.service);
      call.deadlineAt = operation.at;
    }
    return next(call);
  };
