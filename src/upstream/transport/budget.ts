import type { Layer } from './call.js';

/**
 * Counts each call in its operation's budget (budget.ts) before it is made; past the budget the call
 * fails with `TOO_MANY_CALLS` and is neither made nor written down.
 */
export const budget: Layer = (next) =>
  function counted(call) {
    call.scope?.budget?.spend(call.service);
    return next(call);
  };
